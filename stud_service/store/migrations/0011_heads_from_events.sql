-- A stream's head is its last event: nothing about a stream is updated in place any more.
--
-- streams.version was a second copy of the head, rewritten by every append. That update was the
-- largest single cost of a group commit (measured: a fifth of an 8-command batch's time in the
-- server), and it is not needed for correctness: the events' primary key (stream_id, version)
-- already refuses a stale expected version, and max(version) is one backward step of that key.
-- streams stays as the catalogue of streams (id, creation time), written once per stream.
--
-- The columns this release stops writing (version, updated_at) stay until a later release drops
-- them, so that replicas of the previous release keep working while a rollout replaces them
-- (docs/deployment.md, "Migrations first"); version gets a default for the rows new code inserts.
-- stud_broken_link, which the previous release's append statement calls, stays for the same reason.
--
-- A truncated tail is no longer visible from inside the database (it never was against someone
-- who also rewrote the head row); signed external checkpoints (stud_service/audit/checkpoint.py)
-- name it.
ALTER TABLE streams ALTER COLUMN version SET DEFAULT 0;
COMMENT ON COLUMN streams.version IS 'no longer written (migration 0011): the head is max(events.version)';
COMMENT ON COLUMN streams.updated_at IS 'no longer written (migration 0011)';

-- The checked path: each command checked and written in turn, each with its own outcome. Same
-- contract as 0007: command i is (p_streams[i], p_expected[i], p_request_ids[i], the i-th
-- chr(30)-separated part of p_commands, its events' canonical JSON texts joined by newlines);
-- outcome 'a' appended (versions first..last), 'd' duplicate request id (the original versions,
-- nothing written) or 'c' conflict (last_version = the stream's actual version, nothing written).
-- Concurrent writers of one stream meet at the events' primary key: the later one waits for the
-- earlier to commit and then fails its insert, which is caught here and answered as a conflict
-- (or as a duplicate, when it was a retry of the same request).
CREATE OR REPLACE FUNCTION stud_append_commands(
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
                                        prev_hash, hash)
                    VALUES (v_stream, v_expected + j, v_event ->> 'type', v_event,
                            (v_event ->> 'hand')::bigint, CASE WHEN j = 1 THEN v_request END,
                            CASE WHEN j = 1 AND v_request IS NOT NULL THEN v_count END, v_prev, v_hash);
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
