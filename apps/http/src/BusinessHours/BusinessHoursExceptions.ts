import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Either, Option } from "effect"
import * as Ordering from "../Http/Ordering.js"
import { withSpan } from "../Observability/Spans.js"
import { BusinessHoursStore, type DuplicateExceptionDate, type StoredSchedule } from "./BusinessHoursStore.js"
import { BusinessHoursExceptionNotFound, BusinessHoursNotSaved, InvalidBusinessHours } from "./Errors.js"
import {
  type ExceptionFields,
  type StoredException,
  validateExceptionBody,
  validateScheduleWith
} from "./Validation.js"

/** Orderings of the exception list: by date unless asked otherwise; ties by id. */
export const ExceptionOrdering = Ordering.make({
  columns: { date: "date", name: "name", id: "id" },
  defaults: ["date"]
})

const DUPLICATE_DATE = "An exception for this date already exists. Use one exception per date."

/**
 * Dated exceptions of an organization's business hours. Every write locks the organization's schedule row,
 * checks the exception on its own and then the whole schedule it would join (so what is stored always
 * compiles), stores it, and bumps the schedule's version in the same transaction.
 */
export class BusinessHoursExceptions extends Effect.Service<BusinessHoursExceptions>()(
  "@helpdesk/http/BusinessHours/BusinessHoursExceptions",
  {
    effect: Effect.gen(function* () {
      const store = yield* BusinessHoursStore

      const lockSchedule = (organizationId: OrganizationId): Effect.Effect<StoredSchedule, BusinessHoursNotSaved> =>
        Effect.flatMap(store.findSchedule(organizationId, { forUpdate: true }), (found) =>
          Option.match(found, { onNone: () => Effect.fail(new BusinessHoursNotSaved()), onSome: Effect.succeed })
        )

      const checked = (
        schedule: StoredSchedule,
        exceptions: ReadonlyArray<StoredException>,
        body: Record<string, unknown>,
        base: StoredException | undefined
      ): Effect.Effect<ExceptionFields, InvalidBusinessHours> => {
        const fields = validateExceptionBody(body, base)
        if (Either.isLeft(fields)) return Effect.fail(new InvalidBusinessHours({ issues: fields.left }))
        const whole = validateScheduleWith(schedule, exceptions, fields.right, base?.id)
        if (Either.isLeft(whole)) return Effect.fail(new InvalidBusinessHours({ issues: whole.left }))
        return Effect.succeed(fields.right)
      }

      const duplicate = () => new InvalidBusinessHours({ issues: [{ path: ["date"], message: DUPLICATE_DATE }] })

      /** One page of the organization's exceptions. */
      const list = (organizationId: OrganizationId, ordering: Ordering.Ordering<string>) =>
        store.pageOfExceptions(organizationId, ordering)

      /** One exception of the organization. */
      const get = (organizationId: OrganizationId, id: number) =>
        Effect.flatMap(store.findException(organizationId, id), (found) =>
          Option.match(found, {
            onNone: () => Effect.fail(new BusinessHoursExceptionNotFound({ id })),
            onSome: Effect.succeed
          })
        )

      /**
       * One checked write of an exception, in a transaction: lock the schedule, find the exception the write
       * changes (`base`; none on create), check the body against it and the whole schedule, store the fields, and
       * bump the version.
       */
      const write = <E>(
        span: string,
        organizationId: OrganizationId,
        body: Record<string, unknown>,
        base: (exceptions: ReadonlyArray<StoredException>) => Effect.Effect<StoredException | undefined, E>,
        save: (fields: ExceptionFields) => Effect.Effect<StoredException, DuplicateExceptionDate>
      ): Effect.Effect<StoredException, BusinessHoursNotSaved | InvalidBusinessHours | E> =>
        Effect.gen(function* () {
          const schedule = yield* lockSchedule(organizationId)
          const exceptions = yield* store.allExceptions(organizationId)
          const current = yield* base(exceptions)
          const fields = yield* checked(schedule, exceptions, body, current)
          const stored = yield* save(fields).pipe(Effect.mapError(duplicate))
          yield* store.bumpVersion(organizationId)
          yield* store.recomputeSla(organizationId)
          return stored
        }).pipe(store.withTransaction, Effect.catchTag("SqlError", Effect.die), withSpan(span))

      /** Adds an exception from a wire body; refused before a schedule is saved. */
      const create = (organizationId: OrganizationId, body: Record<string, unknown>) =>
        write(
          "BusinessHoursExceptions.create",
          organizationId,
          body,
          () => Effect.succeed(undefined),
          (fields) => store.insertException(organizationId, fields)
        )

      /** Applies a partial update from a wire body; the merged exception is checked as a whole. */
      const update = (organizationId: OrganizationId, id: number, body: Record<string, unknown>) =>
        write(
          "BusinessHoursExceptions.update",
          organizationId,
          body,
          (exceptions) => {
            const current = exceptions.find((exception) => exception.id === id)
            return current === undefined
              ? Effect.fail(new BusinessHoursExceptionNotFound({ id }))
              : Effect.succeed(current)
          },
          (fields) => store.updateException(organizationId, id, fields)
        )

      /** Deletes an exception. */
      const remove = (
        organizationId: OrganizationId,
        id: number
      ): Effect.Effect<void, BusinessHoursExceptionNotFound> =>
        Effect.gen(function* () {
          const deleted = yield* store.deleteException(organizationId, id)
          if (!deleted) return yield* new BusinessHoursExceptionNotFound({ id })
          yield* store.bumpVersion(organizationId)
          yield* store.recomputeSla(organizationId)
        }).pipe(
          store.withTransaction,
          Effect.catchTag("SqlError", Effect.die),
          withSpan("BusinessHoursExceptions.remove")
        )

      return { list, get, create, update, remove } as const
    }),
    dependencies: [BusinessHoursStore.Default]
  }
) {}
