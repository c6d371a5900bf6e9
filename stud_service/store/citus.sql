-- Spread stud-service's schema over a Citus cluster (docs/deployment.md, "Beyond one database"), applied by
-- `stud-service migrate --citus` after the migrations; placing a table already placed is skipped, so it is
-- safe to repeat.
--
-- Everything a table's play touches is keyed by its stream id and colocated on one shard: its events,
-- its snapshots, its head and its lease (so a fenced append and the lease row it checks meet on one
-- worker). Money streams (accounts/, house/, players/) and the access log (access/{day}/{writer}) are
-- streams like any other, so they are distributed by the same key. The live-replica list is small and
-- read by every lease round: a reference table, copied to every node. schema_migrations, the
-- migrations' own bookkeeping, stays on the coordinator.
--
-- A single-stream append (stud_append_stream, migrations 0019 and 0021) is distributed by its stream
-- argument and colocated with the events: the coordinator hands each call to the worker holding that
-- stream's shard, which runs the checks and inserts itself, calling no other function. The multi-stream
-- appends (stud_append_parts, stud_append_fenced: group commit, money moves) run on the coordinator, which
-- routes their statements; stud_append_parts is also on every worker (no distribution argument: copied, not
-- delegated), where a replica's batch for a worker's own streams takes its checked path (a conflict, a retry).
-- Citus copies a function created after its extension to the workers by itself; one created before (a
-- database migrated before Citus was added) is copied by this.
CREATE EXTENSION IF NOT EXISTS citus;

SELECT create_distributed_table('streams', 'stream_id');
SELECT create_distributed_table('events', 'stream_id', colocate_with => 'streams');
SELECT create_distributed_table('snapshots', 'stream_id', colocate_with => 'streams');
SELECT create_distributed_table('table_leases', 'stream_id', colocate_with => 'streams');
SELECT create_reference_table('replicas');
SELECT create_distributed_function('stud_append_stream(text,text,bigint,bigint,text,text,text)', 'p_stream', colocate_with => 'events');
SELECT create_distributed_function('stud_append_parts(integer[],boolean[],text[],bigint[],text[],text[],text)');
