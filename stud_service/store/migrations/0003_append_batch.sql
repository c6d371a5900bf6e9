-- One command's events as a single text parameter: their canonical JSON texts joined by newlines
-- (canonical JSON never contains a raw newline: json.dumps escapes control characters). Scalar
-- parameters are much cheaper for the client to send than arrays; type and hand are read back
-- from the events themselves.
CREATE FUNCTION stud_append_text(
    p_stream     text,
    p_expected   bigint,
    p_request_id text,
    p_events     text
) RETURNS TABLE (outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_texts text[] := string_to_array(p_events, E'\n');
BEGIN
    RETURN QUERY SELECT * FROM stud_append(
        p_stream, p_expected, p_request_id,
        ARRAY(SELECT u.t::jsonb ->> 'type' FROM unnest(v_texts) WITH ORDINALITY AS u(t, o) ORDER BY u.o),
        ARRAY(SELECT (u.t::jsonb ->> 'hand')::bigint FROM unnest(v_texts) WITH ORDINALITY AS u(t, o)
              ORDER BY u.o),
        v_texts);
END;
$$;

-- Group commit: several commands (possibly on different streams) appended in one transaction and
-- one round trip. Each command keeps its own outcome ('a', 'd' or 'c', as stud_append), so a
-- conflict in one does not disturb the others; the caller sorts commands by stream id so that
-- concurrent batches always take the streams' row locks in the same order (no deadlock).
-- Events of command i are p_*[lo:hi], where the slices follow one another as given by p_counts.
CREATE FUNCTION stud_append_batch(
    p_streams     text[],
    p_expected    bigint[],
    p_request_ids text[],
    p_counts      integer[],
    p_types       text[],
    p_hands       bigint[],
    p_payloads    text[]
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_lo integer := 1;
    v_hi integer;
    r    record;
BEGIN
    FOR i IN 1 .. cardinality(p_streams) LOOP
        v_hi := v_lo + p_counts[i] - 1;
        SELECT * INTO r FROM stud_append(p_streams[i], p_expected[i], p_request_ids[i],
                                         p_types[v_lo:v_hi], p_hands[v_lo:v_hi], p_payloads[v_lo:v_hi]);
        idx := i;
        outcome := r.outcome;
        first_version := r.first_version;
        last_version := r.last_version;
        RETURN NEXT;
        v_lo := v_hi + 1;
    END LOOP;
END;
$$;

-- Announcements, many per call, in a transaction of their own that need not wait for its WAL
-- flush: they are hints that something was committed, never the data.
CREATE FUNCTION stud_announce_many(p_streams text[], p_versions bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify('stud_events', s || ':' || v) FROM unnest(p_streams, p_versions) AS t(s, v);
END;
$$;

-- Superseded by stud_announce_many (sent by the writer after the append has committed).
DROP FUNCTION stud_announce(text, bigint);
