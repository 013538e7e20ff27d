import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The event store: streams (the compare-and-set target), events (immutable, with a global position from a
 * sequence and the id of the transaction that wrote them), consumer checkpoints, and `hd_append_to_stream`,
 * the one-round-trip append of one stream (see docs/decisions/0300-event-store-append.md).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE hd_streams (
      stream_id text PRIMARY KEY,
      stream_type text NOT NULL,
      version bigint NOT NULL CHECK (version >= 0),
      is_closed boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`CREATE SEQUENCE hd_events_global_position_seq AS bigint`

  yield* sql`
    CREATE TABLE hd_events (
      global_position bigint NOT NULL DEFAULT nextval('hd_events_global_position_seq') UNIQUE,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id text NOT NULL,
      stream_position bigint NOT NULL CHECK (stream_position >= 1),
      event_id uuid NOT NULL UNIQUE,
      event_type text NOT NULL,
      schema_version integer NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (stream_id, stream_position)
    )`
  yield* sql`ALTER SEQUENCE hd_events_global_position_seq OWNED BY hd_events.global_position`

  // Global-log readers walk (transaction_id, global_position) from their checkpoint.
  yield* sql`CREATE INDEX hd_events_transaction_id_global_position_idx ON hd_events (transaction_id, global_position)`

  // Events are facts: once stored they are never rewritten or removed (a migration may lift this deliberately).
  yield* sql`
    CREATE FUNCTION hd_events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'hd_events is append-only (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
    END
    $$`
  yield* sql`
    CREATE TRIGGER hd_events_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON hd_events
    FOR EACH STATEMENT EXECUTE FUNCTION hd_events_are_immutable()`

  yield* sql`
    CREATE TABLE hd_checkpoints (
      consumer_id text PRIMARY KEY,
      last_tx xid8 NOT NULL,
      last_position bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  // Appends the events of one stream after checking the expected version, in one round trip.
  // The stream row is written first (compare-and-set): a loser fails there, before any sequence value is taken,
  // so concurrency conflicts leave no gaps in the global log. Returns one row:
  //   outcome 'appended' | 'conflict' | 'closed', the stream's version (after the append; for a refusal, the
  //   version found, NULL when there is no stream), the global positions of the stored events in order, and the
  //   transaction id and timestamp they were stored with.
  // Expected kinds: 'NoStream' (also Exact 0), 'Exact', 'StreamExists', 'Any'. An append of no events checks
  // the expectation and may close the stream (creating it closed and empty if missing), and returns the global
  // position of the stream's last event.
  yield* sql`
    CREATE FUNCTION hd_append_to_stream(
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
        INSERT INTO hd_streams AS s (stream_id, stream_type, version, is_closed)
          VALUES (p_stream_id, p_stream_type, n, p_close)
          ON CONFLICT (stream_id) DO NOTHING
          RETURNING 0 INTO v_from;
      ELSIF p_expected = 'Exact' THEN
        UPDATE hd_streams AS s SET version = s.version + n, is_closed = p_close, updated_at = now()
          WHERE s.stream_id = p_stream_id AND s.version = p_expected_version AND NOT s.is_closed
          RETURNING s.version - n INTO v_from;
      ELSIF p_expected = 'StreamExists' THEN
        UPDATE hd_streams AS s SET version = s.version + n, is_closed = p_close, updated_at = now()
          WHERE s.stream_id = p_stream_id AND NOT s.is_closed
          RETURNING s.version - n INTO v_from;
      ELSIF p_expected = 'Any' THEN
        -- One statement, so a concurrent creator cannot slip in between a failed update and an insert.
        INSERT INTO hd_streams AS s (stream_id, stream_type, version, is_closed)
          VALUES (p_stream_id, p_stream_type, n, p_close)
          ON CONFLICT (stream_id) DO UPDATE
            SET version = s.version + n, is_closed = p_close, updated_at = now()
            WHERE NOT s.is_closed
          RETURNING s.version - n INTO v_from;
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
        INSERT INTO hd_events (stream_id, stream_position, event_id, event_type, schema_version, data, metadata)
        SELECT p_stream_id, v_from + e.ordinality, e.event_id, e.event_type, e.schema_version, e.data, e.metadata
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
