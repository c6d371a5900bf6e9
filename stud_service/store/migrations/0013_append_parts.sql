-- The checked path for commands that span several streams (EventStore.append_all): every part of a
-- command is checked before any is written, and a command is written whole or not at all.
--
-- Backwards-compatible during a rollout (docs/deployment.md, "Migrations first"): a new function
-- beside the stud_append_commands of 0011 and 0012, which the previous releases call and which stay.
--
-- Part i is (p_streams[i], p_expected[i], p_request_ids[i], p_fingerprints[i] (hex, or NULL), the
-- i-th chr(30)-separated part of p_events: its events' canonical JSON texts joined by newlines) and
-- belongs to command p_commands[i]; p_leads[i] marks the first part of its command, the one whose
-- request id tells a retry from a new command (the other parts' request ids are only recorded).
-- The caller lists the parts in stream id order and names each stream once, so every transaction
-- writes its keys in one order and concurrent batches of several processes do not deadlock.
--
-- One row per part, in the order given: outcome 'a' appended (versions first..last); 'd' its
-- command's request id was used before, nothing written (the lead part gets the original versions,
-- another part those of its own request id when that is recorded, else first = its head + 1 and
-- last = its head); 'c' this part's stream is not at its expected version (last = the actual
-- version), nothing of the command written; 'n' nothing written because another part of the
-- command conflicted (last = its expected version).
--
-- All checks come first, then all writes in one block in the given order. A concurrent writer that
-- takes a key between the check and the write makes the insert wait for it and then fail: the
-- block's writes are undone, the checks run again (they now see the winner's committed row, which
-- settles that command as a duplicate or a conflict), and the remaining commands are written again.
CREATE OR REPLACE FUNCTION stud_append_parts(
    p_commands     integer[],
    p_leads        boolean[],
    p_streams      text[],
    p_expected     bigint[],
    p_request_ids  text[],
    p_fingerprints text[],
    p_events       text
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_parts    text[] := string_to_array(p_events, chr(30));
    v_n        integer := cardinality(p_streams);
    v_outcome  "char"[] := array_fill(NULL::"char", ARRAY[v_n]);
    v_last     bigint[] := array_fill(NULL::bigint, ARRAY[v_n]);
    -- per command: 'p' pending (to be written), 'd' duplicate, 'c' conflict
    v_state    "char"[] := array_fill('p'::"char", ARRAY[coalesce((SELECT max(c) FROM unnest(p_commands) c), 0)]);
    v_settled  integer;
    v_collided boolean := false;
    v_texts    text[];
    v_head     bigint;
    v_prev     bytea;
    v_hash     bytea;
    v_event    jsonb;
    v_found    bigint;
    v_size     integer;
    v_c        integer;
BEGIN
    -- An acknowledged append must survive a crash, whatever the server or session default.
    PERFORM set_config('synchronous_commit', 'on', true);

    LOOP
        v_settled := 0;
        -- Checks: a used request id first (a retry is answered whatever the versions now are),
        -- then every part's expected version.
        FOR i IN 1 .. v_n LOOP
            v_c := p_commands[i];
            IF v_state[v_c] = 'p' AND p_leads[i] AND p_request_ids[i] IS NOT NULL THEN
                PERFORM 1 FROM events e WHERE e.stream_id = p_streams[i] AND e.request_id = p_request_ids[i];
                IF FOUND THEN
                    v_state[v_c] := 'd';
                    v_settled := v_settled + 1;
                END IF;
            END IF;
        END LOOP;
        FOR i IN 1 .. v_n LOOP
            v_c := p_commands[i];
            IF v_state[v_c] <> 'd' THEN
                v_head := coalesce((SELECT max(e.version) FROM events e WHERE e.stream_id = p_streams[i]), 0);
                IF v_head <> p_expected[i] THEN
                    IF v_state[v_c] = 'p' THEN
                        v_settled := v_settled + 1;
                    END IF;
                    v_state[v_c] := 'c';
                    v_outcome[i] := 'c';
                    v_last[i] := v_head;
                END IF;
            END IF;
        END LOOP;
        IF v_collided AND v_settled = 0 THEN
            RAISE EXCEPTION 'appending to streams % kept colliding with other writers', p_streams;
        END IF;

        BEGIN
            FOR i IN 1 .. v_n LOOP
                IF v_state[p_commands[i]] = 'p' THEN
                    IF p_expected[i] = 0 THEN
                        v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
                        INSERT INTO streams (stream_id) VALUES (p_streams[i]) ON CONFLICT DO NOTHING;
                    ELSE
                        SELECT e.hash INTO v_prev FROM events e
                         WHERE e.stream_id = p_streams[i] AND e.version = p_expected[i];
                    END IF;
                    v_texts := string_to_array(v_parts[i], E'\n');
                    FOR j IN 1 .. cardinality(v_texts) LOOP
                        v_event := v_texts[j]::jsonb;
                        v_hash := sha256(v_prev || convert_to(v_texts[j], 'UTF8'));
                        INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,
                                            request_fingerprint, prev_hash, hash)
                        VALUES (p_streams[i], p_expected[i] + j, v_event ->> 'type', v_event,
                                (v_event ->> 'hand')::bigint,
                                CASE WHEN j = 1 THEN p_request_ids[i] END,
                                CASE WHEN j = 1 AND p_request_ids[i] IS NOT NULL THEN cardinality(v_texts) END,
                                CASE WHEN j = 1 AND p_request_ids[i] IS NOT NULL
                                     THEN decode(p_fingerprints[i], 'hex') END,
                                v_prev, v_hash);
                        v_prev := v_hash;
                    END LOOP;
                END IF;
            END LOOP;
            EXIT;
        EXCEPTION WHEN unique_violation THEN
            v_collided := true;  -- every write of the block is undone; check again
        END;
    END LOOP;

    FOR i IN 1 .. v_n LOOP
        v_c := p_commands[i];
        idx := i;
        IF v_state[v_c] = 'p' THEN
            outcome := 'a';
            first_version := p_expected[i] + 1;
            last_version := p_expected[i] + cardinality(string_to_array(v_parts[i], E'\n'));
        ELSIF v_state[v_c] = 'd' THEN
            outcome := 'd';
            v_found := NULL;
            IF p_request_ids[i] IS NOT NULL THEN
                SELECT e.version, e.command_size INTO v_found, v_size
                  FROM events e WHERE e.stream_id = p_streams[i] AND e.request_id = p_request_ids[i];
            END IF;
            IF v_found IS NOT NULL THEN
                first_version := v_found;
                last_version := v_found + v_size - 1;
            ELSE
                last_version := coalesce((SELECT max(e.version) FROM events e WHERE e.stream_id = p_streams[i]), 0);
                first_version := last_version + 1;
            END IF;
        ELSIF v_outcome[i] = 'c' THEN
            outcome := 'c';
            first_version := NULL;
            last_version := v_last[i];
        ELSE
            outcome := 'n';
            first_version := NULL;
            last_version := p_expected[i];
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
