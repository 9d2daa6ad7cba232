-- The drift view without reading the change history (issue 36).
--
-- "changed-outside" drift is, per node and aspect (health aside), the changes after the aspect's
-- last change that a step made or, but for the driver, that came with a boot. The view worked that
-- out from node_changes as a whole: every (node, aspect)'s newest change, then every change of the
-- aspects whose newest was unexplained, into the control plane to be attributed. The fleet gauges
-- ran it every 15 s: at 10,000 nodes it took 5.6 s of PostgreSQL a call, 37 % of the database's
-- time while the projection caught up with a backlog (control-plane/BENCH.md), and it grew with
-- the history.
--
-- The change fold now keeps those runs in each node's provenance as it records the changes
-- (NodeProvenance.unexplained; the same fold, so a rebuild derives the same), as
-- {"0/mig-mode": {"epoch": 3, "seq": 17, "since": <event time, microseconds since 1970>,
-- "before": "disabled", "after": "enabled", "lastEpoch": 3}}: the first change's position, time
-- and value before, the last one's value after and epoch. NULL is read as no run: a snapshot
-- published before this migration has no such field (a rebuild loads it as NULL).

ALTER TABLE node_provenance ADD COLUMN unexplained jsonb;

-- The runs of the history kept so far, as the fold finds them: in log order (epoch, seq).
WITH explained AS (
    SELECT DISTINCT ON (node, aspect) node, aspect, epoch, seq
    FROM node_changes
    WHERE step_generation IS NOT NULL OR (boot_id IS NOT NULL AND aspect <> 'driver')
    ORDER BY node, aspect, epoch DESC, seq DESC),
run AS (
    SELECT c.*
    FROM node_changes c LEFT JOIN explained e ON e.node = c.node AND e.aspect = c.aspect
    WHERE c.aspect NOT LIKE '%/health' AND (e.node IS NULL OR (c.epoch, c.seq) > (e.epoch, e.seq))),
first AS (
    SELECT DISTINCT ON (node, aspect) node, aspect, epoch, seq, event_time, before
    FROM run ORDER BY node, aspect, epoch, seq),
last AS (
    SELECT DISTINCT ON (node, aspect) node, aspect, epoch, after
    FROM run ORDER BY node, aspect, epoch DESC, seq DESC),
runs AS (
    SELECT f.node,
           jsonb_object_agg(f.aspect, jsonb_build_object(
               'epoch', f.epoch, 'seq', f.seq,
               'since', (extract(epoch FROM f.event_time) * 1000000)::bigint,
               'before', f.before, 'after', l.after, 'lastEpoch', l.epoch)) AS unexplained
    FROM first f JOIN last l ON l.node = f.node AND l.aspect = f.aspect
    GROUP BY f.node)
UPDATE node_provenance p
SET unexplained = coalesce((SELECT r.unexplained FROM runs r WHERE r.node = p.node), '{}'::jsonb);

-- Every node's next snapshot carries the runs: the marks say which snapshots are current.
DELETE FROM node_snapshot_marks;
