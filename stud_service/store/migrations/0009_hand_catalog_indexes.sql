-- Finding hands (stud_service/audit/catalog.py) by time and by player without reading every event.
-- Both indexes hold HandStarted events only, one per hand: appends of other events pay only the
-- predicate. The first serves the listing order (start time, table, hand) and its page position;
-- the second the player filter (payload->'seats' contains [player]).
CREATE INDEX events_hand_started_time_idx ON events (recorded_at, stream_id, hand)
    WHERE type = 'HandStarted';
CREATE INDEX events_hand_started_seats_idx ON events USING gin ((payload -> 'seats') jsonb_path_ops)
    WHERE type = 'HandStarted';
