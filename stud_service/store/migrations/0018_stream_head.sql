-- A stream's head (the version of its last event; NULL before its first), one stream per call: the listener's
-- safety-net poll asks it of every followed stream (store/subscribe.py). A function, not a correlated
-- subquery over unnest(...): Citus refuses a correlated subquery beside a set-returning function, and the
-- function's one-stream query is routed to the one shard holding the stream. Each call is one backward
-- step of the events' primary key, as the subquery was.
--
-- Backwards-compatible during a rollout: a new function only.
CREATE OR REPLACE FUNCTION stud_stream_head(p_stream text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT max(e.version) FROM events e WHERE e.stream_id = p_stream);
END;
$$;
