-- A leaner single-command append: fewer statements per call, each event's JSON parsed once and
-- inserted directly (no arrays rebuilt, no nested function). Same contract as stud_append:
-- outcome 'a' appended (versions first..last), 'd' duplicate request id (the original versions),
-- 'c' conflict (last_version = the stream's actual version); nothing is written unless 'a'.
CREATE OR REPLACE FUNCTION stud_append_text(
    p_stream     text,
    p_expected   bigint,
    p_request_id text,
    p_events     text          -- canonical JSON texts joined by newlines
) RETURNS TABLE (outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_texts  text[] := string_to_array(p_events, E'\n');
    v_count  integer := cardinality(v_texts);
    v_prev   bytea;
    v_hash   bytea;
    v_event  jsonb;
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
            outcome := 'd'; first_version := v_first; last_version := v_first + v_size - 1;
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;

    -- The streams row lock serialises writers of one stream (see stud_append).
    IF p_expected = 0 THEN
        INSERT INTO streams (stream_id, version) VALUES (p_stream, v_count) ON CONFLICT DO NOTHING;
    ELSE
        UPDATE streams SET version = p_expected + v_count, updated_at = now()
         WHERE stream_id = p_stream AND version = p_expected;
    END IF;

    IF NOT FOUND THEN
        IF p_request_id IS NOT NULL THEN
            SELECT e.version, e.command_size INTO v_first, v_size
              FROM events e WHERE e.stream_id = p_stream AND e.request_id = p_request_id;
            IF FOUND THEN
                outcome := 'd'; first_version := v_first; last_version := v_first + v_size - 1;
                RETURN NEXT;
                RETURN;
            END IF;
        END IF;
        SELECT s.version INTO v_actual FROM streams s WHERE s.stream_id = p_stream;
        outcome := 'c'; first_version := NULL; last_version := coalesce(v_actual, 0);
        RETURN NEXT;
        RETURN;
    END IF;

    IF p_expected = 0 THEN
        v_prev := decode(repeat('00', 32), 'hex');
    ELSE
        SELECT e.hash INTO v_prev FROM events e WHERE e.stream_id = p_stream AND e.version = p_expected;
    END IF;

    FOR i IN 1 .. v_count LOOP
        v_event := v_texts[i]::jsonb;
        v_hash := sha256(v_prev || convert_to(v_texts[i], 'UTF8'));
        INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size, prev_hash, hash)
        VALUES (p_stream, p_expected + i, v_event ->> 'type', v_event, (v_event ->> 'hand')::bigint,
                CASE WHEN i = 1 THEN p_request_id END,
                CASE WHEN i = 1 AND p_request_id IS NOT NULL THEN v_count END,
                v_prev, v_hash);
        v_prev := v_hash;
    END LOOP;

    outcome := 'a'; first_version := p_expected + 1; last_version := p_expected + v_count;
    RETURN NEXT;
END;
$$;

-- Group commit over the lean append: command i is (p_streams[i], p_expected[i], p_request_ids[i],
-- p_events[i]); the caller orders commands by stream id (see 0003).
CREATE FUNCTION stud_append_many(
    p_streams     text[],
    p_expected    bigint[],
    p_request_ids text[],
    p_events      text[]
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR i IN 1 .. cardinality(p_streams) LOOP
        SELECT * INTO r FROM stud_append_text(p_streams[i], p_expected[i], p_request_ids[i], p_events[i]);
        idx := i;
        outcome := r.outcome;
        first_version := r.first_version;
        last_version := r.last_version;
        RETURN NEXT;
    END LOOP;
END;
$$;
