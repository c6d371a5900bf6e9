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
-- A single-stream append (stud_append_stream, migration 0019) is distributed by its stream argument and
-- colocated with the events: the coordinator hands each call to the worker holding that stream's shard,
-- which runs the checks and inserts itself. The functions it calls are copied to every worker (distributed
-- with no argument: never delegated themselves); on the coordinator they still run the multi-stream
-- appends (group commit, money moves), whose statements it routes.
CREATE EXTENSION IF NOT EXISTS citus;

SELECT create_distributed_table('streams', 'stream_id');
SELECT create_distributed_table('events', 'stream_id', colocate_with => 'streams');
SELECT create_distributed_table('snapshots', 'stream_id', colocate_with => 'streams');
SELECT create_distributed_table('table_leases', 'stream_id', colocate_with => 'streams');
SELECT create_reference_table('replicas');
SELECT create_distributed_function('stud_append_parts(integer[],boolean[],text[],bigint[],text[],text[],text)');
SELECT create_distributed_function('stud_append_fenced(text,text,bigint,integer[],boolean[],text[],bigint[],text[],text[],text)');
SELECT create_distributed_function('stud_append_stream(text,text,bigint,bigint,text,text,text)', 'p_stream', colocate_with => 'events');
