-- Ownership follows the clients (docs/deployment.md, "Ownership"): each replica records, with its
-- heartbeat, the tables its own clients are using and how much (its watch streams on the table, plus one
-- if its clients called it within the last lease period). A table one live replica clearly uses most is
-- owned there; the others' fair share counts only the tables nobody clearly claims. Stored in the
-- replica's own row (one row written per round, whatever the number of tables), and, like the row, it
-- counts only while the replica is live.
--
-- Backwards-compatible during a rollout: columns with defaults; a replica of the version before writes
-- none (it claims nothing) and ignores the others' claims.

ALTER TABLE replicas
    ADD COLUMN interest_streams text[]    NOT NULL DEFAULT '{}',
    ADD COLUMN interest_clients integer[] NOT NULL DEFAULT '{}';
