-- A request id's fingerprint: what the request asked for, stored with the first event of the command
-- it caused, so that the same id sent again with a different request can be told from a retry
-- (Google's AIP-155). The store keeps it and hands it back; what goes into it is the caller's business.
--
-- Backwards-compatible with the previous release during a rollout (docs/deployment.md, "Migrations
-- first"): the column is nullable, so that release's INSERT, which does not name it, still works; and
-- the checked path gets a second stud_append_commands taking the fingerprints, beside the one that
-- release calls (which stays, writing none). Rows without a fingerprint are answered as retries.
ALTER TABLE events ADD COLUMN IF NOT EXISTS request_fingerprint bytea;
COMMENT ON COLUMN events.request_fingerprint IS
    'with request_id: the fingerprint of the request that caused the command (migration 0012)';

-- As 0011's stud_append_commands, with p_fingerprints[i] (hex, or NULL) stored beside command i's
-- request id.
CREATE OR REPLACE FUNCTION stud_append_commands(
    p_streams      text[],
    p_expected     bigint[],
    p_request_ids  text[],
    p_fingerprints text[],
    p_commands     text
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_commands    text[] := string_to_array(p_commands, chr(30));
    v_texts       text[];
    v_count       integer;
    v_stream      text;
    v_expected    bigint;
    v_request     text;
    v_fingerprint bytea;
    v_prev        bytea;
    v_hash        bytea;
    v_event       jsonb;
    v_first       bigint;
    v_size        integer;
BEGIN
    -- An acknowledged append must survive a crash, whatever the server or session default.
    PERFORM set_config('synchronous_commit', 'on', true);

    FOR i IN 1 .. cardinality(p_streams) LOOP
        idx := i;
        v_stream := p_streams[i];
        v_expected := p_expected[i];
        v_request := p_request_ids[i];
        v_fingerprint := decode(p_fingerprints[i], 'hex');
        v_texts := string_to_array(v_commands[i], E'\n');
        v_count := cardinality(v_texts);

        -- A second pass only after a concurrent writer took this stream's next version (or this
        -- request id) between the check and the insert: its committed row answers the check then.
        outcome := NULL;
        FOR pass IN 1 .. 2 LOOP
            IF v_request IS NOT NULL THEN
                SELECT e.version, e.command_size INTO v_first, v_size
                  FROM events e WHERE e.stream_id = v_stream AND e.request_id = v_request;
                IF FOUND THEN
                    outcome := 'd'; first_version := v_first; last_version := v_first + v_size - 1;
                    EXIT;
                END IF;
            END IF;

            first_version := NULL;
            last_version := coalesce((SELECT max(e.version) FROM events e WHERE e.stream_id = v_stream), 0);
            IF last_version <> v_expected THEN
                outcome := 'c';
                EXIT;
            END IF;

            IF v_expected = 0 THEN
                v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
            ELSE
                SELECT e.hash INTO v_prev FROM events e WHERE e.stream_id = v_stream AND e.version = v_expected;
            END IF;

            BEGIN
                IF v_expected = 0 THEN
                    INSERT INTO streams (stream_id) VALUES (v_stream) ON CONFLICT DO NOTHING;
                END IF;
                FOR j IN 1 .. v_count LOOP
                    v_event := v_texts[j]::jsonb;
                    v_hash := sha256(v_prev || convert_to(v_texts[j], 'UTF8'));
                    INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,
                                        request_fingerprint, prev_hash, hash)
                    VALUES (v_stream, v_expected + j, v_event ->> 'type', v_event,
                            (v_event ->> 'hand')::bigint, CASE WHEN j = 1 THEN v_request END,
                            CASE WHEN j = 1 AND v_request IS NOT NULL THEN v_count END,
                            CASE WHEN j = 1 AND v_request IS NOT NULL THEN v_fingerprint END, v_prev, v_hash);
                    v_prev := v_hash;
                END LOOP;
                outcome := 'a'; first_version := v_expected + 1; last_version := v_expected + v_count;
                EXIT;
            EXCEPTION WHEN unique_violation THEN
                NULL;  -- this command's writes are undone; look again
            END;
        END LOOP;
        IF outcome IS NULL THEN
            RAISE EXCEPTION 'appending to stream % kept colliding with other writers', v_stream;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
