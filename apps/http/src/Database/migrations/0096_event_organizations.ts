import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ties every event to its organization, so an organization's change feed is one index range
 * (docs/decisions/0306-event-feed-and-history.md):
 *
 * - `hd_streams.organization_id`: taken once, when the stream is created, from its first event's
 *   `data.organizationId` (a ticket's `TicketCreated`); `NULL` for streams that belong to no organization;
 * - `hd_events.organization_id`: the stream's, written with every event by `hd_append_to_stream` (the
 *   `RETURNING` of the stream row's compare-and-set hands it over: no extra query, no trigger);
 * - `hd_events_organization_log_idx` on `(organization_id, transaction_id, global_position)`: the feed walks it
 *   with the global log's rule (below the snapshot's xmin, after a `(transaction id, position)` cursor).
 *
 * Existing rows are filled in here; that one UPDATE lifts the events' immutability trigger deliberately (it adds a
 * derived column, no fact changes).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // The organization a stream's first event names: a string or number of digits, anything else is none.
  yield* sql`
    CREATE FUNCTION hd_organization_of(p_data jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN p_data ->> 'organizationId' ~ '^[0-9]{1,18}$' THEN (p_data ->> 'organizationId')::bigint END
    $$`

  yield* sql`ALTER TABLE hd_streams ADD COLUMN organization_id bigint`
  yield* sql`ALTER TABLE hd_events ADD COLUMN organization_id bigint`

  yield* sql`
    UPDATE hd_streams s SET organization_id = hd_organization_of(e.data)
    FROM hd_events e WHERE e.stream_id = s.stream_id AND e.stream_position = 1`
  yield* sql`ALTER TABLE hd_events DISABLE TRIGGER hd_events_immutable`
  yield* sql`
    UPDATE hd_events e SET organization_id = s.organization_id
    FROM hd_streams s WHERE s.stream_id = e.stream_id AND s.organization_id IS NOT NULL`
  yield* sql`ALTER TABLE hd_events ENABLE TRIGGER hd_events_immutable`

  yield* sql`
    CREATE INDEX hd_events_organization_log_idx ON hd_events (organization_id, transaction_id, global_position)
    WHERE organization_id IS NOT NULL`

  // As 0001's, plus the organization: set on the stream row when it is created, copied onto every event.
  yield* sql`
    CREATE OR REPLACE FUNCTION hd_append_to_stream(
      p_stream_id text,
      p_stream_type text,
      p_expected text,
      p_expected_version bigint,
      p_close boolean,
      p_event_ids uuid[],
      p_event_types text[],
      p_schema_versions integer[],
      p_data jsonb[],
      p_metadata jsonb[]
    ) RETURNS TABLE (outcome text, version bigint, global_positions bigint[], transaction_id xid8, created_at timestamptz)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      n bigint := coalesce(cardinality(p_event_ids), 0);
      v_from bigint;
      v_org bigint;
      v_found_version bigint;
      v_found_closed boolean;
      v_positions bigint[];
    BEGIN
      IF p_expected = 'Exact' AND p_expected_version = 0 THEN
        p_expected := 'NoStream';
      END IF;

      IF n = 0 THEN
        SELECT s.version, s.is_closed INTO v_found_version, v_found_closed
          FROM hd_streams s WHERE s.stream_id = p_stream_id FOR UPDATE;
        IF v_found_closed THEN
          RETURN QUERY SELECT 'closed'::text, v_found_version, '{}'::bigint[], NULL::xid8, NULL::timestamptz;
        ELSIF (p_expected = 'NoStream' AND v_found_version IS NOT NULL)
           OR (p_expected = 'StreamExists' AND v_found_version IS NULL)
           OR (p_expected = 'Exact' AND v_found_version IS DISTINCT FROM p_expected_version) THEN
          RETURN QUERY SELECT 'conflict'::text, v_found_version, '{}'::bigint[], NULL::xid8, NULL::timestamptz;
        ELSE
          IF p_close THEN
            INSERT INTO hd_streams AS s (stream_id, stream_type, version, is_closed)
              VALUES (p_stream_id, p_stream_type, 0, true)
              ON CONFLICT (stream_id) DO UPDATE SET is_closed = true, updated_at = now();
          END IF;
          RETURN QUERY SELECT 'appended'::text, coalesce(v_found_version, 0),
            array(SELECT e.global_position FROM hd_events e
                   WHERE e.stream_id = p_stream_id AND e.stream_position = v_found_version),
            NULL::xid8, NULL::timestamptz;
        END IF;
        RETURN;
      END IF;

      IF p_expected = 'NoStream' THEN
        INSERT INTO hd_streams AS s (stream_id, stream_type, version, is_closed, organization_id)
          VALUES (p_stream_id, p_stream_type, n, p_close, hd_organization_of(p_data[1]))
          ON CONFLICT (stream_id) DO NOTHING
          RETURNING 0, s.organization_id INTO v_from, v_org;
      ELSIF p_expected = 'Exact' THEN
        UPDATE hd_streams AS s SET version = s.version + n, is_closed = p_close, updated_at = now()
          WHERE s.stream_id = p_stream_id AND s.version = p_expected_version AND NOT s.is_closed
          RETURNING s.version - n, s.organization_id INTO v_from, v_org;
      ELSIF p_expected = 'StreamExists' THEN
        UPDATE hd_streams AS s SET version = s.version + n, is_closed = p_close, updated_at = now()
          WHERE s.stream_id = p_stream_id AND NOT s.is_closed
          RETURNING s.version - n, s.organization_id INTO v_from, v_org;
      ELSIF p_expected = 'Any' THEN
        -- One statement, so a concurrent creator cannot slip in between a failed update and an insert.
        INSERT INTO hd_streams AS s (stream_id, stream_type, version, is_closed, organization_id)
          VALUES (p_stream_id, p_stream_type, n, p_close, hd_organization_of(p_data[1]))
          ON CONFLICT (stream_id) DO UPDATE
            SET version = s.version + n, is_closed = p_close, updated_at = now()
            WHERE NOT s.is_closed
          RETURNING s.version - n, s.organization_id INTO v_from, v_org;
      ELSE
        RAISE EXCEPTION 'unknown expected version kind %', p_expected USING ERRCODE = 'invalid_parameter_value';
      END IF;

      IF v_from IS NULL THEN
        SELECT s.version, s.is_closed INTO v_found_version, v_found_closed
          FROM hd_streams s WHERE s.stream_id = p_stream_id;
        RETURN QUERY SELECT CASE WHEN v_found_closed THEN 'closed' ELSE 'conflict' END::text,
          v_found_version, '{}'::bigint[], NULL::xid8, NULL::timestamptz;
        RETURN;
      END IF;

      WITH inserted AS (
        INSERT INTO hd_events (stream_id, stream_position, event_id, event_type, schema_version, data, metadata, organization_id)
        SELECT p_stream_id, v_from + e.ordinality, e.event_id, e.event_type, e.schema_version, e.data, e.metadata, v_org
          FROM unnest(p_event_ids, p_event_types, p_schema_versions, p_data, p_metadata)
            WITH ORDINALITY AS e(event_id, event_type, schema_version, data, metadata, ordinality)
          ORDER BY e.ordinality
        RETURNING stream_position, global_position
      )
      SELECT array_agg(i.global_position ORDER BY i.stream_position) INTO v_positions FROM inserted i;

      RETURN QUERY SELECT 'appended'::text, v_from + n, v_positions, pg_current_xact_id(), now();
    END
    $$`
})
