-- Player sessions (stud_service/sessions; docs/player-protection.md): the events of sessions/{day}/{writer}
-- streams. Partial indexes, on those events only: a table's append pays just the predicate.
--   - a player's sessions, newest first: the same-network rule at SitDown and ListPlayerSessions by player;
--   - every session by its start: ListPlayerSessions in time order, and its page position;
--   - a session's later events (the tables it named, its end) by its stream and id.
-- IF NOT EXISTS: on a large events table an operator builds them first with CREATE INDEX CONCURRENTLY
-- (docs/deployment.md), and this migration then only records them.
CREATE INDEX IF NOT EXISTS events_session_player_idx ON events ((payload->>'player'), ((payload->>'at_ms')::bigint))
    WHERE type = 'PlayerSessionStarted';
CREATE INDEX IF NOT EXISTS events_session_start_idx ON events (((payload->>'at_ms')::bigint), stream_id, version)
    WHERE type = 'PlayerSessionStarted';
CREATE INDEX IF NOT EXISTS events_session_later_idx ON events (stream_id, (payload->>'session'))
    WHERE type IN ('PlayerSessionTables', 'PlayerSessionEnded');
