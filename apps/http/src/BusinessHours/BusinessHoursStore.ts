import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type * as Ordering from "../Http/Ordering.js"
import type { ExceptionFields, StoredException, WeeklyHours } from "./Validation.js"

/** A saved schedule: its zone, all seven days, and the version counting every change to it or its exceptions. */
export interface StoredSchedule {
  readonly timeZone: string
  readonly weeklyHours: WeeklyHours
  readonly version: number
}

interface ScheduleRow {
  readonly timeZone: string
  readonly weeklyHours: WeeklyHours | string
  readonly version: string | number
}

interface ExceptionRow {
  readonly id: string | number
  readonly date: string
  readonly name: string
  readonly repeatsYearly: boolean
  readonly opensAt: string | null
  readonly closesAt: string | null
}

const toSchedule = (row: ScheduleRow): StoredSchedule => ({
  timeZone: row.timeZone,
  weeklyHours: typeof row.weeklyHours === "string" ? (JSON.parse(row.weeklyHours) as WeeklyHours) : row.weeklyHours,
  version: Number(row.version)
})

const toException = (row: ExceptionRow): StoredException => ({
  id: Number(row.id),
  date: row.date,
  name: row.name,
  repeats_yearly: row.repeatsYearly,
  opens_at: row.opensAt,
  closes_at: row.closesAt
})

/** PostgreSQL's code for a unique violation. */
const UNIQUE_VIOLATION = "23505"

/** The stored date of another exception: refused as a duplicate. */
export class DuplicateExceptionDate {
  readonly _tag = "DuplicateExceptionDate"
}

/**
 * Rows of `business_hours` and `business_hours_exceptions`. Every query is scoped to one organization; dates
 * come back as `YYYY-MM-DD` text (never a JS `Date`, which would shift them by the server's zone) and times as
 * `HH:MM:SS`. SQL failures are defects.
 */
export class BusinessHoursStore extends Effect.Service<BusinessHoursStore>()(
  "@helpdesk/http/BusinessHours/BusinessHoursStore",
  {
    dependencies: [],
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const exceptionColumns = sql`
      id, to_char(date, 'YYYY-MM-DD') AS date, name, repeats_yearly, opens_at::text AS opens_at,
      closes_at::text AS closes_at`

      /** The organization's working language and its saved schedule, if any (one query). */
      const findWithLanguage = (organizationId: number) =>
        sql<ScheduleRow & { readonly workingLanguage: string; readonly hasSchedule: boolean }>`
        SELECT o.working_language, b.organization_id IS NOT NULL AS has_schedule, b.time_zone, b.weekly_hours, b.version
        FROM organizations o LEFT JOIN business_hours b ON b.organization_id = o.id
        WHERE o.id = ${organizationId}`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            if (row === undefined) return Option.none()
            return Option.some({
              workingLanguage: row.workingLanguage,
              schedule: row.hasSchedule ? Option.some(toSchedule(row)) : Option.none<StoredSchedule>()
            })
          }),
          Effect.orDie
        )

      /** The saved schedule; `forUpdate` locks it until the surrounding transaction ends. */
      const findSchedule = (organizationId: number, options: { readonly forUpdate?: boolean } = {}) =>
        sql<ScheduleRow>`
        SELECT time_zone, weekly_hours, version FROM business_hours WHERE organization_id = ${organizationId}
        ${options.forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(toSchedule))),
          Effect.orDie
        )

      /** Creates or replaces the schedule (exceptions stay), bumping its version. */
      const saveSchedule = (organizationId: number, timeZone: string, weeklyHours: WeeklyHours) =>
        sql`
        INSERT INTO business_hours (organization_id, time_zone, weekly_hours)
        VALUES (${organizationId}, ${timeZone}, ${JSON.stringify(weeklyHours)}::jsonb)
        ON CONFLICT (organization_id) DO UPDATE
        SET time_zone = EXCLUDED.time_zone, weekly_hours = EXCLUDED.weekly_hours,
            version = business_hours.version + 1, updated_at = now()`.pipe(Effect.asVoid, Effect.orDie)

      /** Marks a change of the exceptions, so cached compiled schedules of older versions are not used. */
      const bumpVersion = (organizationId: number) =>
        sql`UPDATE business_hours SET version = version + 1, updated_at = now() WHERE organization_id = ${organizationId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      /** Every exception of the organization, by date. */
      const allExceptions = (organizationId: number) =>
        sql<ExceptionRow>`
        SELECT ${exceptionColumns} FROM business_hours_exceptions
        WHERE organization_id = ${organizationId} ORDER BY date, id`.pipe(
          Effect.map((rows) => rows.map(toException)),
          Effect.orDie
        )

      /** One page of exceptions in the requested order. */
      const pageOfExceptions = (organizationId: number, ordering: Ordering.Ordering<string>) => ({
        count: sql<{ readonly count: string }>`
        SELECT count(*) AS count FROM business_hours_exceptions WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]!.count)),
          Effect.orDie
        ),
        fetch: (window: { readonly limit: number; readonly offset: number }) =>
          sql<ExceptionRow>`
          SELECT ${exceptionColumns} FROM business_hours_exceptions
          WHERE organization_id = ${organizationId}
          ORDER BY ${ordering.orderBy(sql)} LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
            Effect.map((rows) => rows.map(toException)),
            Effect.orDie
          )
      })

      /** One exception of the organization. */
      const findException = (organizationId: number, id: number) =>
        sql<ExceptionRow>`
        SELECT ${exceptionColumns} FROM business_hours_exceptions
        WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(toException))),
          Effect.orDie
        )

      const uniqueViolation = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
        effect.pipe(
          Effect.catchAll((error) =>
            (error as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION
              ? Effect.fail(new DuplicateExceptionDate())
              : Effect.die(error)
          )
        )

      /** Inserts an exception; another one on the same date is `DuplicateExceptionDate`. */
      const insertException = (organizationId: number, fields: ExceptionFields) =>
        sql<ExceptionRow>`
        INSERT INTO business_hours_exceptions (organization_id, date, name, repeats_yearly, opens_at, closes_at)
        VALUES (${organizationId}, ${fields.date}::date, ${fields.name}, ${fields.repeats_yearly},
                ${fields.opens_at}::time, ${fields.closes_at}::time)
        RETURNING ${exceptionColumns}`.pipe(
          Effect.map((rows) => toException(rows[0]!)),
          uniqueViolation
        )

      /** Replaces an exception's fields; another one on the same date is `DuplicateExceptionDate`. */
      const updateException = (organizationId: number, id: number, fields: ExceptionFields) =>
        sql<ExceptionRow>`
        UPDATE business_hours_exceptions
        SET date = ${fields.date}::date, name = ${fields.name}, repeats_yearly = ${fields.repeats_yearly},
            opens_at = ${fields.opens_at}::time, closes_at = ${fields.closes_at}::time, updated_at = now()
        WHERE organization_id = ${organizationId} AND id = ${id}
        RETURNING ${exceptionColumns}`.pipe(
          Effect.map((rows) => toException(rows[0]!)),
          uniqueViolation
        )

      /** Deletes an exception; false when there was none. */
      const deleteException = (organizationId: number, id: number) =>
        sql`DELETE FROM business_hours_exceptions WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )

      return {
        findWithLanguage,
        findSchedule,
        saveSchedule,
        bumpVersion,
        allExceptions,
        pageOfExceptions,
        findException,
        insertException,
        updateException,
        deleteException,
        withTransaction: sql.withTransaction
      } as const
    })
  }
) {}
