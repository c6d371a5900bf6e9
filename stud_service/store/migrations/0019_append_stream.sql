-- One command on one stream, fenced or not, through one function whose first argument is that stream: on a
-- Citus cluster the layout (store/citus.sql) distributes it by that argument, colocated with the events, so
-- the coordinator hands the whole call to the one worker holding the stream's shard (its lease row too,
-- when the lease is the stream's own): one round trip to one worker, where the checks and the inserts run
-- next to the data. On plain PostgreSQL it is the checked path for that one command.
--
-- p_owner NULL: no fence. Else the command is written only if p_owner holds the lease of p_stream at
-- p_epoch, unexpired (stud_append_fenced). The outcome is an array: {ascii(outcome), first, last}, with
-- outcome as stud_append_parts's ('a', 'd', 'c') or 'f' (fenced); a single value so the call can be
-- "SELECT f(...)", the form Citus delegates.
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
    r record;
BEGIN
    IF p_owner IS NULL THEN
        SELECT * INTO r FROM stud_append_parts(ARRAY[1], ARRAY[true], ARRAY[p_stream], ARRAY[p_expected],
                                               ARRAY[p_request_id], ARRAY[p_fingerprint], p_events);
    ELSE
        SELECT * INTO r FROM stud_append_fenced(p_stream, p_owner, p_epoch, ARRAY[1], ARRAY[true], ARRAY[p_stream],
                                                ARRAY[p_expected], ARRAY[p_request_id], ARRAY[p_fingerprint],
                                                p_events);
    END IF;
    RETURN ARRAY[ascii(r.outcome::text), r.first_version, r.last_version];
END;
$$;
