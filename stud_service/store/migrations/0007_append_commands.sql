-- Group commit in one function call: the commands' lean appends inlined in a single loop, with
-- synchronous commit forced once per transaction instead of once per command and no nested
-- function call per command. Same contract as stud_append_joined (0006): command i is
-- (p_streams[i], p_expected[i], p_request_ids[i], the i-th chr(30)-separated part of p_commands,
-- its events' canonical JSON texts joined by newlines); each command gets its own outcome,
-- 'a' appended (versions first..last), 'd' duplicate request id (the original versions, nothing
-- written) or 'c' conflict (last_version = the stream's actual version, nothing written).
-- The caller orders commands by stream id, so concurrent batches lock streams in one order.
CREATE FUNCTION stud_append_commands(
    p_streams     text[],
    p_expected    bigint[],
    p_request_ids text[],
    p_commands    text
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_commands text[] := string_to_array(p_commands, chr(30));
    v_texts    text[];
    v_count    integer;
    v_stream   text;
    v_expected bigint;
    v_request  text;
    v_prev     bytea;
    v_hash     bytea;
    v_event    jsonb;
    v_first    bigint;
    v_size     integer;
BEGIN
    -- An acknowledged append must survive a crash, whatever the server or session default.
    PERFORM set_config('synchronous_commit', 'on', true);

    FOR i IN 1 .. cardinality(p_streams) LOOP
        idx := i;
        v_stream := p_streams[i];
        v_expected := p_expected[i];
        v_request := p_request_ids[i];
        v_texts := string_to_array(v_commands[i], E'\n');
        v_count := cardinality(v_texts);

        IF v_request IS NOT NULL THEN
            SELECT e.version, e.command_size INTO v_first, v_size
              FROM events e WHERE e.stream_id = v_stream AND e.request_id = v_request;
            IF FOUND THEN
                outcome := 'd'; first_version := v_first; last_version := v_first + v_size - 1;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;

        -- The streams row lock serialises writers of one stream (see stud_append, 0002).
        IF v_expected = 0 THEN
            INSERT INTO streams (stream_id, version) VALUES (v_stream, v_count) ON CONFLICT DO NOTHING;
        ELSE
            UPDATE streams SET version = v_expected + v_count, updated_at = now()
             WHERE stream_id = v_stream AND version = v_expected;
        END IF;

        IF NOT FOUND THEN
            -- A concurrent retry of this same request may have won: answer as a duplicate if so.
            IF v_request IS NOT NULL THEN
                SELECT e.version, e.command_size INTO v_first, v_size
                  FROM events e WHERE e.stream_id = v_stream AND e.request_id = v_request;
                IF FOUND THEN
                    outcome := 'd'; first_version := v_first; last_version := v_first + v_size - 1;
                    RETURN NEXT;
                    CONTINUE;
                END IF;
            END IF;
            outcome := 'c'; first_version := NULL;
            last_version := coalesce((SELECT s.version FROM streams s WHERE s.stream_id = v_stream), 0);
            RETURN NEXT;
            CONTINUE;
        END IF;

        IF v_expected = 0 THEN
            v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
        ELSE
            SELECT e.hash INTO v_prev FROM events e WHERE e.stream_id = v_stream AND e.version = v_expected;
        END IF;

        FOR j IN 1 .. v_count LOOP
            v_event := v_texts[j]::jsonb;
            v_hash := sha256(v_prev || convert_to(v_texts[j], 'UTF8'));
            INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,
                                prev_hash, hash)
            VALUES (v_stream, v_expected + j, v_event ->> 'type', v_event, (v_event ->> 'hand')::bigint,
                    CASE WHEN j = 1 THEN v_request END,
                    CASE WHEN j = 1 AND v_request IS NOT NULL THEN v_count END,
                    v_prev, v_hash);
            v_prev := v_hash;
        END LOOP;

        outcome := 'a'; first_version := v_expected + 1; last_version := v_expected + v_count;
        RETURN NEXT;
    END LOOP;
END;
$$;
