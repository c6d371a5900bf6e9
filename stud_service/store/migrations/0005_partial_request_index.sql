-- Only a command's first event carries a request id, and many commands carry none: index just
-- those rows. The key still starts with stream_id, so request ids stay unique within a stream.
CREATE UNIQUE INDEX events_stream_request_idx ON events (stream_id, request_id) WHERE request_id IS NOT NULL;
ALTER TABLE events DROP CONSTRAINT events_stream_request_key;
