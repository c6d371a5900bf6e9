-- Table ownership (docs/deployment.md, "Ownership"): each table is owned by one replica at a time
-- through a lease that expires by this database's clock; its epoch grows at every change of owner and
-- fences the owner's own appends (stud_append_fenced), so a replica that lost a lease while paused
-- writes nothing when it wakes. Leases, not session advisory locks: a lock lives as long as its
-- connection (a stopped process with its socket open would keep its tables for ever) and does not
-- survive a pooler in transaction mode.
--
-- Backwards-compatible during a rollout: new tables and a new function only.

CREATE TABLE table_leases (
    stream_id  text        PRIMARY KEY,   -- the table's stream (tables/{table}): distributable with it
    owner      text        NOT NULL,      -- the replica id holding it
    epoch      bigint      NOT NULL,      -- +1 at each take: the fencing token
    expires_at timestamptz NOT NULL
);
CREATE INDEX table_leases_owner ON table_leases (owner);

-- Replicas seen alive (each renews its row with its leases): their count sets each one's fair share.
CREATE TABLE replicas (
    replica_id text        PRIMARY KEY,
    seen_at    timestamptz NOT NULL
);

-- stud_append_parts, if the lease of p_lease is still p_owner's at p_epoch and unexpired; else nothing
-- is written and every part's outcome is 'f' (fenced; last = its expected version). The lease row is
-- locked FOR SHARE, so a take of that lease waits for this append to commit: the new owner then reads it.
CREATE OR REPLACE FUNCTION stud_append_fenced(
    p_lease        text,
    p_owner        text,
    p_epoch        bigint,
    p_commands     integer[],
    p_leads        boolean[],
    p_streams      text[],
    p_expected     bigint[],
    p_request_ids  text[],
    p_fingerprints text[],
    p_events       text
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM table_leases l
     WHERE l.stream_id = p_lease AND l.owner = p_owner AND l.epoch = p_epoch AND l.expires_at > now()
       FOR SHARE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT i, 'f'::"char", NULL::bigint, p_expected[i]
                       FROM generate_subscripts(p_streams, 1) AS i;
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM stud_append_parts(
        p_commands, p_leads, p_streams, p_expected, p_request_ids, p_fingerprints, p_events);
END;
$$;
