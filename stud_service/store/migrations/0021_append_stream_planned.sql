-- stud_append_stream (0019) with its one stream's checks and writes in statements of its own, the stream a
-- plain argument, each planned for the values of its call (plan_cache_mode = force_custom_plan).
--
-- Why, measured on a Citus cluster, where the coordinator hands the call to the stream's worker and every
-- statement of the function goes through Citus's planner there: 0019 called stud_append_parts with
-- one-element arrays, whose statements name the stream as an array element. Citus plans those again at
-- every call, and the ones it could cache (the inserts, after a few calls) took a generic plan whose
-- shard plan it planned again at every execution and kept each copy: a worker's session grew by about
-- 200 kB a call (58 MB over 300 appends) and most of its CPU went to planning. Here every statement names
-- the stream by the argument, so Citus routes each to the local shard from the plan made for that call,
-- and keeps nothing.
--
-- Fewer statements per append, too: the head and its hash in one read (the newest event of the stream);
-- the request id looked up only when the head is not the expected one (a retry, or a conflict) or after a
-- collision (a used request id at the expected head fails the insert on its unique index, and the second
-- pass then finds it); the command's events in one INSERT. Outcomes as before: {ascii(outcome), first, last}, outcome 'a' appended, 'd' the
-- request id was used (its versions), 'c' conflict (last = the head), 'f' fenced (last = p_expected).
--
-- Backwards-compatible during a rollout: the same function, same arguments and answers.
CREATE OR REPLACE FUNCTION stud_append_stream(
    p_stream      text,
    p_owner       text,
    p_epoch       bigint,
    p_expected    bigint,
    p_request_id  text,
    p_fingerprint text,
    p_events      text
) RETURNS bigint[]
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    v_texts text[] := string_to_array(p_events, E'\n');
    v_count integer := cardinality(v_texts);
    v_head  bigint;
    v_first bigint;
    v_size  integer;
    v_prev  bytea;
    v_payloads jsonb[];
    v_prevs    bytea[];
    v_hashes   bytea[];
    v_sql      text;
BEGIN
    -- An acknowledged append must survive a crash, whatever the server or session default.
    PERFORM set_config('synchronous_commit', 'on', true);

    IF p_owner IS NOT NULL THEN
        -- FOR SHARE: a take of this lease waits for this append to commit, and the new owner reads it.
        PERFORM 1 FROM table_leases l
         WHERE l.stream_id = p_stream AND l.owner = p_owner AND l.epoch = p_epoch AND l.expires_at > now()
           FOR SHARE;
        IF NOT FOUND THEN
            RETURN ARRAY[ascii('f'), NULL, p_expected];
        END IF;
    END IF;

    -- A second pass only after a collision: a concurrent writer took this stream's next version, or the
    -- request id is used; the committed rows answer the checks then.
    FOR pass IN 1 .. 2 LOOP
        SELECT e.version, e.hash INTO v_head, v_prev
          FROM events e WHERE e.stream_id = p_stream ORDER BY e.version DESC LIMIT 1;
        v_head := coalesce(v_head, 0);
        IF v_head <> p_expected OR pass = 2 THEN
            IF p_request_id IS NOT NULL THEN
                SELECT e.version, e.command_size INTO v_first, v_size
                  FROM events e WHERE e.stream_id = p_stream AND e.request_id = p_request_id;
                IF FOUND THEN
                    RETURN ARRAY[ascii('d'), v_first, v_first + v_size - 1];
                END IF;
            END IF;
            IF v_head <> p_expected THEN
                RETURN ARRAY[ascii('c'), NULL, v_head];
            END IF;
        END IF;
        BEGIN
            IF p_expected = 0 THEN
                v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
                INSERT INTO streams (stream_id) VALUES (p_stream) ON CONFLICT DO NOTHING;
            END IF;
            -- One multi-row INSERT for the command's events (the VALUES list made for their count), not one
            -- statement each: on Citus every statement is planned and routed on its own.
            v_sql := 'INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,'
                     ' request_fingerprint, prev_hash, hash) VALUES ';
            FOR j IN 1 .. v_count LOOP
                v_payloads[j] := v_texts[j]::jsonb;
                v_hashes[j] := sha256(v_prev || convert_to(v_texts[j], 'UTF8'));
                v_prevs[j] := v_prev;
                v_prev := v_hashes[j];
                v_sql := v_sql || CASE WHEN j > 1 THEN ', ' ELSE '' END
                    || format('($1, $2 + %1$s, $3[%1$s] ->> ''type'', $3[%1$s], ($3[%1$s] ->> ''hand'')::bigint,'
                              ' %2$s, $4[%1$s], $5[%1$s])',
                              j, CASE WHEN j = 1 THEN '$6, $7, $8' ELSE 'NULL, NULL, NULL' END);
            END LOOP;
            EXECUTE v_sql USING p_stream, p_expected, v_payloads, v_prevs, v_hashes, p_request_id,
                CASE WHEN p_request_id IS NOT NULL THEN v_count END,
                CASE WHEN p_request_id IS NOT NULL THEN decode(p_fingerprint, 'hex') END;
            RETURN ARRAY[ascii('a'), p_expected + 1, p_expected + v_count];
        EXCEPTION WHEN unique_violation THEN
            NULL;  -- this command's writes are undone; look again
        END;
    END LOOP;
    RAISE EXCEPTION 'appending to stream % kept colliding with other writers', p_stream;
END;
$$;
