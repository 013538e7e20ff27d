import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, Schema } from "effect"
import { BigInt8, Jsonb } from "../Database/Columns.js"
import * as Repository from "../Database/Repository.js"
import { dieUndecodable } from "../Database/Rows.js"
import type * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { recomputeOrganization } from "../Sla/SlaState.js"
import { type ExceptionFields, type StoredException, type WeeklyHours, WeeklyHoursModel } from "./Validation.js"

/** A saved schedule: its zone, all seven days, and the version counting every change to it or its exceptions. */
export interface StoredSchedule {
  readonly timeZone: string
  readonly weeklyHours: WeeklyHours
  readonly version: number
}

/** A `business_hours` row as the saved schedule. */
const ScheduleRow = Schema.Struct({ timeZone: Schema.String, weeklyHours: Jsonb(WeeklyHoursModel), version: BigInt8 })

/** The organization's working language, with its `business_hours` row when it has one (a left join). */
const LanguageAndScheduleRow = Schema.Union(
  Schema.Struct({ workingLanguage: Schema.String, hasSchedule: Schema.Literal(true), ...ScheduleRow.fields }),
  Schema.Struct({ workingLanguage: Schema.String, hasSchedule: Schema.Literal(false) })
)

const fromColumn = <A, I>(schema: Schema.Schema<A, I>, column: string) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(column))

/** A `business_hours_exceptions` row (dates as `YYYY-MM-DD`, times as `HH:MM:SS` text) as a stored exception. */
const ExceptionRow = Schema.Struct({
  id: BigInt8,
  date: Schema.String,
  name: Schema.String,
  repeats_yearly: fromColumn(Schema.Boolean, "repeatsYearly"),
  opens_at: fromColumn(Schema.NullOr(Schema.String), "opensAt"),
  closes_at: fromColumn(Schema.NullOr(Schema.String), "closesAt")
})

const SCHEDULES = "business_hours"
const EXCEPTIONS = "business_hours_exceptions"

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

      const findLanguageAndSchedule = Repository.findOne({
        table: SCHEDULES,
        span: "BusinessHoursStore.findWithLanguage",
        Request: OrganizationId,
        Result: LanguageAndScheduleRow,
        execute: (organizationId) => sql`
        SELECT o.working_language, b.organization_id IS NOT NULL AS has_schedule, b.time_zone, b.weekly_hours, b.version
        FROM organizations o LEFT JOIN business_hours b ON b.organization_id = o.id
        WHERE o.id = ${organizationId}`
      })

      /** The organization's working language and its saved schedule, if any (one query). */
      const findWithLanguage = (organizationId: OrganizationId) =>
        Effect.map(findLanguageAndSchedule(organizationId), (row) =>
          row === undefined
            ? Option.none()
            : Option.some({
                workingLanguage: row.workingLanguage,
                schedule: row.hasSchedule
                  ? Option.some<StoredSchedule>({
                      timeZone: row.timeZone,
                      weeklyHours: row.weeklyHours,
                      version: row.version
                    })
                  : Option.none<StoredSchedule>()
              })
        )

      /** The saved schedule; `forUpdate` locks it until the surrounding transaction ends. */
      const findSchedule = (organizationId: OrganizationId, options: { readonly forUpdate?: boolean } = {}) =>
        sql`
        SELECT time_zone, weekly_hours, version FROM business_hours WHERE organization_id = ${organizationId}
        ${options.forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(Repository.returning(SCHEDULES, ScheduleRow), Effect.orDie)

      /** Creates or replaces the schedule (exceptions stay), bumping its version. */
      const saveSchedule = (organizationId: OrganizationId, timeZone: string, weeklyHours: WeeklyHours) =>
        sql`
        INSERT INTO business_hours (organization_id, time_zone, weekly_hours)
        VALUES (${organizationId}, ${timeZone}, ${JSON.stringify(weeklyHours)}::jsonb)
        ON CONFLICT (organization_id) DO UPDATE
        SET time_zone = EXCLUDED.time_zone, weekly_hours = EXCLUDED.weekly_hours,
            version = business_hours.version + 1, updated_at = now()`.pipe(Effect.asVoid, Effect.orDie)

      /** Marks a change of the exceptions, so cached compiled schedules of older versions are not used. */
      const bumpVersion = (organizationId: OrganizationId) =>
        sql`UPDATE business_hours SET version = version + 1, updated_at = now() WHERE organization_id = ${organizationId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      const exceptionsOf = SqlSchema.findAll({
        Request: OrganizationId,
        Result: ExceptionRow,
        execute: (organizationId) => sql`
        SELECT ${exceptionColumns} FROM business_hours_exceptions
        WHERE organization_id = ${organizationId} ORDER BY date, id`
      })

      /** Every exception of the organization, by date. */
      const allExceptions = (organizationId: OrganizationId): Effect.Effect<ReadonlyArray<StoredException>> =>
        exceptionsOf(organizationId).pipe(dieUndecodable(EXCEPTIONS), Effect.orDie)

      /** One page of exceptions in the requested order. */
      const pageOfExceptions = (organizationId: OrganizationId, ordering: Ordering.Ordering<string>) =>
        Pagination.page(sql, {
          from: sql`business_hours_exceptions`,
          select: sql`SELECT ${exceptionColumns} FROM business_hours_exceptions`,
          where: sql`organization_id = ${organizationId}`,
          ordering,
          rows: { table: EXCEPTIONS, schema: ExceptionRow }
        })

      /** One exception of the organization. */
      const findException = (organizationId: OrganizationId, id: number) =>
        sql`
        SELECT ${exceptionColumns} FROM business_hours_exceptions
        WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Repository.returning(EXCEPTIONS, ExceptionRow),
          Effect.orDie
        )

      /** The exception a write returns (`RETURNING`); a write that returned none is a defect. */
      const written = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
        statement.pipe(Repository.returning(EXCEPTIONS, ExceptionRow), Effect.map(Option.getOrThrow))

      const uniqueViolation = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
        effect.pipe(
          Effect.catchAll((error) =>
            (error as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION
              ? Effect.fail(new DuplicateExceptionDate())
              : Effect.die(error)
          )
        )

      /** Inserts an exception; another one on the same date is `DuplicateExceptionDate`. */
      const insertException = (organizationId: OrganizationId, fields: ExceptionFields) =>
        sql`
        INSERT INTO business_hours_exceptions (organization_id, date, name, repeats_yearly, opens_at, closes_at)
        VALUES (${organizationId}, ${fields.date}::date, ${fields.name}, ${fields.repeats_yearly},
                ${fields.opens_at}::time, ${fields.closes_at}::time)
        RETURNING ${exceptionColumns}`.pipe(written, uniqueViolation)

      /** Replaces an exception's fields; another one on the same date is `DuplicateExceptionDate`. */
      const updateException = (organizationId: OrganizationId, id: number, fields: ExceptionFields) =>
        sql`
        UPDATE business_hours_exceptions
        SET date = ${fields.date}::date, name = ${fields.name}, repeats_yearly = ${fields.repeats_yearly},
            opens_at = ${fields.opens_at}::time, closes_at = ${fields.closes_at}::time, updated_at = now()
        WHERE organization_id = ${organizationId} AND id = ${id}
        RETURNING ${exceptionColumns}`.pipe(written, uniqueViolation)

      /** Deletes an exception; false when there was none. */
      const deleteException = (organizationId: OrganizationId, id: number) =>
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
        /**
         * Recomputes the SLA state of the organization's tickets under its changed schedule (SLA due times count
         * business hours, decision 0503), in the caller's transaction: the change and its due times commit together.
         */
        recomputeSla: (organizationId: OrganizationId) =>
          recomputeOrganization(organizationId).pipe(Effect.asVoid, Effect.provideService(SqlClient.SqlClient, sql)),
        withTransaction: sql.withTransaction
      } as const
    })
  }
) {}
