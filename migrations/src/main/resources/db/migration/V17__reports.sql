-- Views for dashboards (Grafana, deploy/grafana/): the projection's tables as the questions an
-- operator asks, in a schema of their own so a reporting role can be granted exactly this:
--   GRANT USAGE ON SCHEMA reports TO grafana; GRANT SELECT ON ALL TABLES IN SCHEMA reports TO grafana;
-- Every panel's SQL runs in the build (GrafanaPanelsIT), so a change here or to a table below that
-- breaks a panel breaks the build.
CREATE SCHEMA IF NOT EXISTS reports;

-- The MIG layout of each GPU as a readable string: its instances' profiles in placement order
-- ("3g.40gb+2g.20gb+1g.10gb+1g.10gb"), "MIG off" or "no MIG" (a card without MIG).
CREATE VIEW reports.gpu_layouts AS
SELECT g.node,
       g.gpu_index,
       upper(g.pci_device_id) AS pci_device_id,
       g.product,
       g.mig_mode,
       g.health,
       CASE g.mig_mode
           WHEN 'enabled' THEN coalesce(
               (SELECT string_agg(i.profile, '+' ORDER BY i.placement_start)
                FROM gpu_instances i
                WHERE i.node = g.node AND i.gpu_index = g.gpu_index),
               'MIG on, no instances')
           WHEN 'disabled' THEN 'MIG off'
           ELSE 'no MIG'
       END AS layout
FROM gpus g;

-- One row per node: where it is, what it runs, its GPUs and whether it has converged to its desired
-- spec. "pool" is the first of the usual node-pool labels the node carries.
-- "converged" is readmodel.Convergence in SQL (ConvergenceSqlAgreementIT keeps the two equal): the
-- desired generation applied, no failure at or after it, not waiting to re-apply after a boot.
CREATE VIEW reports.node_inventory AS
SELECT n.name AS node,
       coalesce(n.zone, '(none)') AS zone,
       coalesce(n.labels ->> 'pool',
                n.labels ->> 'cloud.google.com/gke-nodepool',
                n.labels ->> 'eks.amazonaws.com/nodegroup',
                n.labels ->> 'karpenter.sh/nodepool',
                n.labels ->> 'kubernetes.azure.com/agentpool',
                '(none)') AS pool,
       coalesce(n.host_kind, 'unregistered') AS host_kind,
       trim(coalesce(n.os_id, '') || ' ' || coalesce(n.os_version, '')) AS os,
       n.kernel,
       coalesce(n.driver_version, '(none)') AS driver_version,
       n.driver_provider,
       n.last_seen,
       (SELECT count(*) FROM gpus g WHERE g.node = n.name) AS gpus,
       (SELECT count(*) FROM gpus g WHERE g.node = n.name AND g.mig_mode = 'enabled') AS mig_gpus,
       (SELECT count(*) FROM gpus g WHERE g.node = n.name AND g.health <> 'healthy') AS unhealthy_gpus,
       coalesce((SELECT string_agg(DISTINCT l.layout, ' | ')
                 FROM reports.gpu_layouts l WHERE l.node = n.name), '(no GPUs)') AS mig_layout,
       d.generation AS desired_generation,
       d.spec ->> 'driverVersion' AS desired_driver_version,
       coalesce(r.applied_generation, 0) AS applied_generation,
       coalesce(r.failure_generation < greatest(coalesce(d.generation, 0), coalesce(r.applied_generation, 0)), true)
           AND NOT coalesce(r.boot_pending, false)
           AND coalesce(d.generation, 0) <= coalesce(r.applied_generation, 0) AS converged,
       d.spec ->> 'driverVersion' IS NOT NULL
           AND d.spec ->> 'driverVersion' IS DISTINCT FROM n.driver_version AS driver_drift
FROM nodes n
LEFT JOIN desired_specs d ON d.node = n.name
LEFT JOIN node_reconcile r ON r.node = n.name;

-- How many nodes run each combination of driver, OS and MIG layout, per zone and pool, and how many
-- of them have not reached their desired state (the drift to highlight).
CREATE VIEW reports.version_distribution AS
SELECT zone,
       pool,
       driver_version,
       os,
       mig_layout,
       count(*) AS nodes,
       count(*) FILTER (WHERE NOT converged OR driver_drift) AS drifted
FROM reports.node_inventory
GROUP BY zone, pool, driver_version, os, mig_layout;

-- Each rollout with its node counts by state (of the phase it is in); who paused it ("system" when
-- a failure threshold did, else the operator's token subject); and its in-flight nodes past the
-- rollout's node timeout (the engine fails those itself, so any here means it is not acting).
CREATE VIEW reports.rollout_progress AS
SELECT r.id,
       r.name,
       r.state,
       r.current_wave,
       r.awaiting_promotion,
       r.status_reason,
       r.created_by,
       r.created_at,
       r.updated_at,
       count(s.node) AS nodes,
       count(s.node) FILTER (WHERE s.state = 'pending') AS pending,
       count(s.node) FILTER (WHERE s.state = 'in-flight') AS in_flight,
       count(s.node) FILTER (WHERE s.state = 'succeeded') AS succeeded,
       count(s.node) FILTER (WHERE s.state = 'failed') AS failed,
       CASE WHEN r.state = 'paused' THEN
           (SELECT e.data ->> 'actor' FROM rollout_event_log e
            WHERE e.rollout = r.id AND e.event_type LIKE '%.paused.%'
            ORDER BY e.seq DESC LIMIT 1)
       END AS paused_by,
       count(s.node) FILTER (WHERE s.state = 'in-flight' AND s.started_at < now() - make_interval(
           secs => coalesce((r.spec -> 'strategy' ->> 'nodeTimeoutSeconds')::double precision, 600)))
           AS overdue
FROM rollouts r
LEFT JOIN rollout_node_states s ON s.rollout = r.id
GROUP BY r.id;

-- Every node a rollout finished, with when and how: the time series of rollout outcomes.
CREATE VIEW reports.rollout_node_outcomes AS
SELECT s.rollout,
       r.name AS rollout_name,
       s.node,
       s.wave,
       s.phase,
       s.state,
       s.reason,
       s.started_at,
       s.finished_at,
       extract(epoch FROM s.finished_at - s.started_at) AS seconds
FROM rollout_node_states s
JOIN rollouts r ON r.id = s.rollout
WHERE s.finished_at IS NOT NULL;
