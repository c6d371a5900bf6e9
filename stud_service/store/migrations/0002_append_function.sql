-- Append one command's events in one round trip and one transaction.
--
-- p_payloads are the events' canonical JSON texts (see stud_service/store/canonical.py); the hash
-- chain is computed here over exactly those UTF-8 bytes, so it matches what `verify` recomputes.
-- Outcome: 'a' appended (versions first..last), 'd' duplicate request id (the original versions,
-- nothing written), 'c' conflict (last_version = the stream's actual version, nothing written).
--
-- Writers on one stream are serialised by the row lock on streams: a second writer with the same
-- expected version waits for the first, then finds the version moved and reports a conflict.
CREATE FUNCTION stud_append(
    p_stream     text,
    p_expected   bigint,
    p_request_id text,
    p_types      text[],
    p_hands      bigint[],
    p_payloads   text[]
) RETURNS TABLE (outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_count  integer := cardinality(p_payloads);
    v_prev   bytea;
    v_hashes bytea[] := '{}';
    v_prevs  bytea[] := '{}';
    v_first  bigint;
    v_size   integer;
    v_actual bigint;
BEGIN
    -- An acknowledged append must survive a crash, whatever the server or session default.
    PERFORM set_config('synchronous_commit', 'on', true);

    IF p_request_id IS NOT NULL THEN
        SELECT e.version, e.command_size INTO v_first, v_size
          FROM events e WHERE e.stream_id = p_stream AND e.request_id = p_request_id;
        IF FOUND THEN
            RETURN QUERY SELECT 'd'::"char", v_first, v_first + v_size - 1;
            RETURN;
        END IF;
    END IF;

    IF p_expected = 0 THEN
        INSERT INTO streams (stream_id, version) VALUES (p_stream, v_count) ON CONFLICT DO NOTHING;
    ELSE
        UPDATE streams SET version = p_expected + v_count, updated_at = now()
         WHERE stream_id = p_stream AND version = p_expected;
    END IF;

    IF NOT FOUND THEN
        -- Lost the race or a stale expectation. A concurrent retry of this same request may be
        -- the winner: this statement sees its commit, so answer as a duplicate if so.
        IF p_request_id IS NOT NULL THEN
            SELECT e.version, e.command_size INTO v_first, v_size
              FROM events e WHERE e.stream_id = p_stream AND e.request_id = p_request_id;
            IF FOUND THEN
                RETURN QUERY SELECT 'd'::"char", v_first, v_first + v_size - 1;
                RETURN;
            END IF;
        END IF;
        SELECT s.version INTO v_actual FROM streams s WHERE s.stream_id = p_stream;
        RETURN QUERY SELECT 'c'::"char", NULL::bigint, coalesce(v_actual, 0);
        RETURN;
    END IF;

    IF p_expected = 0 THEN
        v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    ELSE
        SELECT e.hash INTO v_prev FROM events e WHERE e.stream_id = p_stream AND e.version = p_expected;
    END IF;

    FOR i IN 1 .. v_count LOOP
        v_prevs := v_prevs || v_prev;
        v_prev := sha256(v_prev || convert_to(p_payloads[i], 'UTF8'));
        v_hashes := v_hashes || v_prev;
    END LOOP;

    INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size, prev_hash, hash)
    SELECT p_stream, p_expected + t.ord, t.type, t.payload::jsonb, t.hand,
           CASE WHEN t.ord = 1 THEN p_request_id END,
           CASE WHEN t.ord = 1 AND p_request_id IS NOT NULL THEN v_count END,
           t.prev, t.hash
      FROM unnest(p_types, p_hands, p_payloads, v_prevs, v_hashes)
           WITH ORDINALITY AS t(type, hand, payload, prev, hash, ord);

    RETURN QUERY SELECT 'a'::"char", p_expected + 1, p_expected + v_count;
END;
$$;

-- Announce new events to listeners. Called right after the append commits, in its own short
-- transaction: a NOTIFY inside the append would hold PostgreSQL's global notify lock through the
-- commit's WAL flush and serialise every writer. A lost announcement is harmless: subscribers
-- read from their last version, and poll as a safety net.
CREATE FUNCTION stud_announce(p_stream text, p_version bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify('stud_events', p_stream || ':' || p_version);
END;
$$;
