-- Bounded node history (issue 11 item 6).
--
-- 1. Heartbeats are liveness, not history: the node row keeps the newest one (last_seen and the
--    position), and node_events keeps every other event (the changes of state) in full. A heartbeat
--    costs the projection one UPDATE per node per batch instead of an INSERT each.
-- 2. The per-node seq continuity the history used to show is counted on the node row instead:
--    missed_events is the number of (epoch, seq) the node numbered that the projection never
--    applied (a record dead-lettered, or lost before Kafka); a new epoch counts from seq 0.
-- 3. node_events is range-partitioned by event_time, one partition per UTC day, so history past
--    fleetwave.projection.history.retention is dropped a partition at a time, never row by row.
--    Partitions are created ahead and dropped by the control plane (HistoryPartitionMaintenance);
--    the default partition only catches events whose time lies outside every day partition (an
--    agent clock far off); maintenance moves its rows into a day partition when it creates one.

ALTER TABLE nodes ADD COLUMN missed_events bigint NOT NULL DEFAULT 0;

-- What a fold of the old history yields: the gaps in (epoch, seq) of each node's applied events.
UPDATE nodes AS n
SET missed_events = g.missed
FROM (
    SELECT node, sum(gap) AS missed
    FROM (
        SELECT node,
               CASE WHEN epoch = lag(epoch) OVER w THEN seq - lag(seq) OVER w - 1 ELSE seq END AS gap
        FROM node_events
        WINDOW w AS (PARTITION BY node ORDER BY epoch, seq)
    ) gaps
    GROUP BY node
) g
WHERE n.name = g.node;

ALTER TABLE node_events RENAME TO node_events_unpartitioned;
ALTER INDEX node_events_pkey RENAME TO node_events_unpartitioned_pkey;

-- A partitioned table's keys must include the partition key; an event's time never changes, so
-- (node, epoch, seq, event_time) identifies it as (node, epoch, seq) did.
CREATE TABLE node_events (
    node       text        NOT NULL,
    epoch      bigint      NOT NULL,
    seq        bigint      NOT NULL,
    event_id   text        NOT NULL,
    event_type text        NOT NULL,
    event_time timestamptz NOT NULL,
    payload    jsonb       NOT NULL,
    PRIMARY KEY (node, epoch, seq, event_time)
) PARTITION BY RANGE (event_time);

CREATE TABLE node_events_default PARTITION OF node_events DEFAULT;

-- One partition per UTC day of the existing history, so its rows land in day partitions directly.
DO $$
DECLARE
    day date;
BEGIN
    FOR day IN
        SELECT DISTINCT (event_time AT TIME ZONE 'UTC')::date FROM node_events_unpartitioned
    LOOP
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF node_events FOR VALUES FROM (%L) TO (%L)',
            'node_events_p' || to_char(day, 'YYYYMMDD'),
            day::timestamp AT TIME ZONE 'UTC',
            (day + 1)::timestamp AT TIME ZONE 'UTC');
    END LOOP;
END
$$;

INSERT INTO node_events
SELECT * FROM node_events_unpartitioned WHERE event_type <> 'io.fleetwave.node.heartbeat.v1';

DROP TABLE node_events_unpartitioned;

-- 4. Rebuild under Kafka retention: the projection publishes each node's folded state to the
--    compacted topic fleet.node-snapshots (NodeSnapshots); a rebuild starts from those snapshots and
--    folds the retained tail of fleet.node-events. This table is the position each node's newest
--    published snapshot covers, so that only nodes that changed since are published again. Not a
--    part of the projection (not compared, not rebuilt): losing it only republishes every node.
CREATE TABLE node_snapshot_marks (
    node  text   PRIMARY KEY,
    epoch bigint NOT NULL,
    seq   bigint NOT NULL
);
