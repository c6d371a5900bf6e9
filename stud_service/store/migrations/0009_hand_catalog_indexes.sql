-- Finding hands (stud_service/audit/catalog.py) by time and by player without reading every event.
-- Both indexes hold HandStarted events only, one per hand: appends of other events pay only the
-- predicate. The first serves the listing order (start time, table, hand) and its page position;
-- the second the player filter (payload->'seats' contains [player]). IF NOT EXISTS: on a large events
-- table an operator builds them first with CREATE INDEX CONCURRENTLY (docs/deployment.md), and this
-- migration then only records them.
CREATE INDEX IF NOT EXISTS events_hand_started_time_idx ON events (recorded_at, stream_id, hand)
    WHERE type = 'HandStarted';
CREATE INDEX IF NOT EXISTS events_hand_started_seats_idx ON events USING gin ((payload -> 'seats') jsonb_path_ops)
    WHERE type = 'HandStarted';
