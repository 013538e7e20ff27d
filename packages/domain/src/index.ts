/** `@helpdesk/domain`: the ticket lifecycle as events and pure projections. */
export * from "./EventStore.js"
