/**
 * `Effect.withSpan` for the service's code, free when the tracer is disabled (the service's default, decision 0780);
 * the domain's pipeline traces its units of work the same way.
 */
export { withSpanWhenTraced as withSpan } from "@helpdesk/domain"
