-- A player's newest sessions (stud_service/sessions/reading.py, the same-network rule at SitDown): the
-- session starts of one player, newest first, at most p_recent, each with whether it has ended. A function
-- the query calls per player, not a LATERAL subquery with a LIMIT over unnest(...): Citus refuses a LIMIT
-- in a lateral subquery that refers to a table function, and runs this function's query on every shard
-- with the ordering and the limit merged on the coordinator. On one PostgreSQL the same index serves it
-- (events_session_player_idx, migration 0016).
--
-- Backwards-compatible during a rollout: a new function only.
CREATE OR REPLACE FUNCTION stud_recent_sessions(p_player text, p_recent integer)
RETURNS TABLE (stream_id text, version bigint, payload text, ended boolean)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT s.stream_id, s.version, s.payload::text,
           EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.stream_id AND e.type = 'PlayerSessionEnded'
                      AND e.payload->>'session' = s.payload->>'session')
      FROM events s
     WHERE s.type = 'PlayerSessionStarted' AND s.payload->>'player' = p_player
     ORDER BY (s.payload->>'at_ms')::bigint DESC LIMIT p_recent;
END;
$$;
