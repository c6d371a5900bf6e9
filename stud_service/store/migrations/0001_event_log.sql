-- The event log: one stream per table, its version = the count of its events.
-- Every unique key starts with stream_id, so the tables can be distributed by stream id.

CREATE TABLE streams (
    stream_id   text        PRIMARY KEY,
    version     bigint      NOT NULL CHECK (version >= 0),  -- head: the version of the last event
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE events (
    stream_id    text        NOT NULL,
    version      bigint      NOT NULL CHECK (version >= 1),
    type         text        NOT NULL,
    payload      jsonb       NOT NULL,                      -- the whole event, "type" included
    hand         bigint,                                    -- hand number for hand-scoped events
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    request_id   text,                                      -- on the first event of a command only
    command_size integer     CHECK (command_size >= 1),     -- events in that command (with request_id)
    prev_hash    bytea       NOT NULL,
    hash         bytea       NOT NULL,
    PRIMARY KEY (stream_id, version),
    CONSTRAINT events_stream_request_key UNIQUE (stream_id, request_id)
);

-- One hand's events without scanning the stream.
CREATE INDEX events_stream_hand_idx ON events (stream_id, hand, version) WHERE hand IS NOT NULL;

-- Snapshots are an optimisation only: a load checks format_version and the event hash they were
-- taken at, and falls back to a full replay when they do not match.
CREATE TABLE snapshots (
    stream_id      text        NOT NULL,
    format_version integer     NOT NULL,
    version        bigint      NOT NULL CHECK (version >= 1),
    event_hash     bytea       NOT NULL,                    -- hash of the event at `version`
    state          jsonb       NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, format_version, version)
);
