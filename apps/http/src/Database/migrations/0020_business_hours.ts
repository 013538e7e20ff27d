import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Business hours: one schedule per organization (time zone and weekly hours) and its dated exceptions.
 *
 * `version` counts every change to the schedule or its exceptions, in the same transaction as the change, so a
 * compiled schedule cached under (organization, version) can never disagree with the database on any replica.
 * Exception writes lock the schedule row first, which also serializes them per organization.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE business_hours (
      organization_id bigint PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
      time_zone text NOT NULL CHECK (time_zone <> ''),
      weekly_hours jsonb NOT NULL,
      version bigint NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE business_hours_exceptions (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      date date NOT NULL,
      name text NOT NULL DEFAULT '' CHECK (char_length(name) <= 64),
      repeats_yearly boolean NOT NULL DEFAULT false,
      opens_at time,
      closes_at time,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((opens_at IS NULL) = (closes_at IS NULL)),
      CONSTRAINT business_hours_exceptions_date_key UNIQUE (organization_id, date)
    )`
})
