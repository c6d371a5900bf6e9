-- One command on one stream, fenced or not, through one function whose first argument is that stream: on a
-- Citus cluster the layout (store/citus.sql) distributes it by that argument, colocated with the events, so
-- the coordinator hands the whole call to the one worker holding the stream's shard (its lease row too,
-- when the lease is the stream's own): one round trip to one worker, where the checks and the inserts run
-- next to the data. On plain PostgreSQL it is the checked path for that one command.
--
-- The checks and writes of stud_append_fenced and stud_append_parts for one part, written out with the
-- stream as a plain argument: every statement then names its shard by a parameter, which Citus routes on
-- the worker without planning it again each call (through arrays, as stud_append_parts does, each was
-- planned anew: measured, most of a call's CPU on the worker).
--
-- p_owner NULL: no fence. Else the command is written only if p_owner holds the lease of p_stream at
-- p_epoch, unexpired (as stud_append_fenced). The outcome is an array: {ascii(outcome), first, last}, with
-- outcome as stud_append_parts's ('a', 'd', 'c') or 'f' (fenced); a single value, so the call is
-- "SELECT f(...)", a form Citus delegates.
--
-- Backwards-compatible during a rollout: a new function only.
CREATE OR REPLACE FUNCTION stud_append_stream(
    p_stream      text,
    p_owner       text,
    p_epoch       bigint,
    p_expected    bigint,
    p_request_id  text,
    p_fingerprint text,
    p_events      text
) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
    v_texts text[] := string_to_array(p_events, E'\n');
    v_count integer := cardinality(v_texts);
    v_head  bigint;
    v_first bigint;
    v_size  integer;
    v_prev  bytea;
    v_hash  bytea;
    v_event jsonb;
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

    -- A second pass only after a concurrent writer took this stream's next version (or this request id)
    -- between the check and the insert: its committed row answers the check then.
    FOR pass IN 1 .. 2 LOOP
        IF p_request_id IS NOT NULL THEN
            SELECT e.version, e.command_size INTO v_first, v_size
              FROM events e WHERE e.stream_id = p_stream AND e.request_id = p_request_id;
            IF FOUND THEN
                RETURN ARRAY[ascii('d'), v_first, v_first + v_size - 1];
            END IF;
        END IF;
        v_head := coalesce((SELECT max(e.version) FROM events e WHERE e.stream_id = p_stream), 0);
        IF v_head <> p_expected THEN
            RETURN ARRAY[ascii('c'), NULL, v_head];
        END IF;
        IF p_expected = 0 THEN
            v_prev := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
        ELSE
            SELECT e.hash INTO v_prev FROM events e WHERE e.stream_id = p_stream AND e.version = p_expected;
        END IF;
        BEGIN
            IF p_expected = 0 THEN
                INSERT INTO streams (stream_id) VALUES (p_stream) ON CONFLICT DO NOTHING;
            END IF;
            FOR j IN 1 .. v_count LOOP
                v_event := v_texts[j]::jsonb;
                v_hash := sha256(v_prev || convert_to(v_texts[j], 'UTF8'));
                INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,
                                    request_fingerprint, prev_hash, hash)
                VALUES (p_stream, p_expected + j, v_event ->> 'type', v_event, (v_event ->> 'hand')::bigint,
                        CASE WHEN j = 1 THEN p_request_id END,
                        CASE WHEN j = 1 AND p_request_id IS NOT NULL THEN v_count END,
                        CASE WHEN j = 1 AND p_request_id IS NOT NULL THEN decode(p_fingerprint, 'hex') END,
                        v_prev, v_hash);
                v_prev := v_hash;
            END LOOP;
            RETURN ARRAY[ascii('a'), p_expected + 1, p_expected + v_count];
        EXCEPTION WHEN unique_violation THEN
            NULL;  -- this command's writes are undone; look again
        END;
    END LOOP;
    RAISE EXCEPTION 'appending to stream % kept colliding with other writers', p_stream;
END;
$$;
