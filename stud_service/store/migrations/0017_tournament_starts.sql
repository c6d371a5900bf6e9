-- Tournaments not yet started (docs/player-protection.md, "Self-exclusion and time-outs"): an excluded player
-- is unregistered from each, and every replica looks for such entries now and then. A partial index on the
-- events that end registration (a start, a cancellation): few, one per tournament at most, so a table's
-- append pays just the predicate, and the tournaments still registering are those without one.
-- IF NOT EXISTS: on a large events table an operator builds it first with CREATE INDEX CONCURRENTLY
-- (docs/deployment.md), and this migration then only records it.
CREATE INDEX IF NOT EXISTS events_tournament_start_idx ON events (stream_id)
    WHERE type IN ('TournamentStarted', 'TournamentCancelled');
