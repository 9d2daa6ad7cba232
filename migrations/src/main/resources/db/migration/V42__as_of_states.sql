-- The fleet as of a past moment, read fast (issue 35 item 1). An as-of read takes each node's
-- newest registration and newest inventory up to the moment; from node_events it parsed every
-- candidate payload (text since V25) to jsonb before DISTINCT ON kept the newest, and sorted the
-- parsed rows on disk: 2.8 s p99 for a page of 500 nodes at 10,000 nodes, 5.8 s for the summary
-- (control-plane/BENCH.md, "As-of reads"). These two tables keep every registration and every
-- inventory of the history a second time, as the columns the reads use, written by the projection
-- in the transaction that writes the history row (ProjectionWriter), so a read picks the newest by
-- its key alone and parses nothing.
--
-- Parts of the projection: rebuilt from the log and compared over the history's window like
-- node_events (ProjectionTables.HISTORIES). Pruned by the history's partition maintenance as the
-- days past the retention go: it deletes each node's rows older than the oldest kept moment but
-- its newest one (what node_history_base keeps of node_events), so a read as of the oldest kept
-- moment starts from the state the node had.

-- A node's registration facts, the columns of its row in nodes.
CREATE TABLE registration_history (
    node            text        NOT NULL,
    epoch           bigint      NOT NULL,
    seq             bigint      NOT NULL,
    event_time      timestamptz NOT NULL,
    host_kind       text,
    os_id           text,
    os_version      text,
    kernel          text,
    read_only_root  boolean,
    systemd         boolean,
    driver_root     text,
    device_root     text,
    driver_provider text,
    driver_version  text,
    zone            text,
    labels          jsonb       NOT NULL,
    reasons         jsonb       NOT NULL,
    -- The time in the key's index: a read picks each node's newest up to its moment from the index
    -- alone (an index-only scan), then fetches the one row picked.
    PRIMARY KEY (node, epoch, seq) INCLUDE (event_time)
);

-- A node's inventory: its GPUs (the columns of gpus, one array each, in the reported order), their
-- MIG instances (the columns of gpu_instances, instance_gpu naming the GPU's index), and its GPUs
-- counted by PCI device id, product, MIG mode and health (count_*: what the fleet summary counts, a
-- few entries a node instead of a row a GPU).
CREATE TABLE inventory_history (
    node             text        NOT NULL,
    epoch            bigint      NOT NULL,
    seq              bigint      NOT NULL,
    event_time       timestamptz NOT NULL,
    gpu_index        integer[]   NOT NULL,
    uuid             text[]      NOT NULL,
    pci_bus_id       text[]      NOT NULL,
    pci_device_id    text[]      NOT NULL,
    product          text[]      NOT NULL,
    memory_mib       bigint[]    NOT NULL,
    mig_capable      boolean[]   NOT NULL,
    mig_mode         text[]      NOT NULL,
    mig_mode_pending text[]      NOT NULL,
    vfs_total        integer[]   NOT NULL,
    vfs_enabled      integer[]   NOT NULL,
    health           text[]      NOT NULL,
    instance_gpu     integer[]   NOT NULL,
    profile          text[]      NOT NULL,
    placement_start  integer[]   NOT NULL,
    placement_size   integer[]   NOT NULL,
    count_device     text[]      NOT NULL,
    count_product    text[]      NOT NULL,
    count_mig_mode   text[]      NOT NULL,
    count_health     text[]      NOT NULL,
    count_gpus       integer[]   NOT NULL,
    -- The time in the key's index: a read picks each node's newest up to its moment from the index
    -- alone (an index-only scan), then fetches the one row picked. The counts too: the summary
    -- reads them from the index alone (the whole rows are some 1.5 KB an 8-GPU node).
    PRIMARY KEY (node, epoch, seq)
        INCLUDE (event_time, count_device, count_product, count_mig_mode, count_health, count_gpus)
);

-- The history kept before this migration, and what the partition maintenance kept of the days it
-- dropped, parsed once here as the as-of reads parsed them.
INSERT INTO registration_history
SELECT node, epoch, seq, event_time, p ->> 'hostKind', p ->> 'osId', p ->> 'osVersion',
       p ->> 'kernel', (p ->> 'readOnlyRoot')::boolean, (p ->> 'systemd')::boolean,
       p ->> 'driverRoot', p ->> 'deviceRoot', p ->> 'driverProvider', p ->> 'driverVersion',
       p ->> 'zone',
       CASE jsonb_typeof(p -> 'labels') WHEN 'object' THEN p -> 'labels' ELSE '{}'::jsonb END,
       CASE jsonb_typeof(p -> 'reasons') WHEN 'object' THEN p -> 'reasons' ELSE '{}'::jsonb END
FROM (SELECT node, epoch, seq, event_time, payload::jsonb AS p FROM node_events
      WHERE event_type = 'io.fleetwave.node.registered.v1'
      UNION ALL
      SELECT node, epoch, seq, event_time, payload::jsonb FROM node_history_base
      WHERE event_type = 'io.fleetwave.node.registered.v1') r
ON CONFLICT (node, epoch, seq) DO NOTHING;

INSERT INTO inventory_history
SELECT i.node, i.epoch, i.seq, i.event_time, g.*, x.*, c.*
FROM (SELECT node, epoch, seq, event_time, payload::jsonb AS p FROM node_events
      WHERE event_type = 'io.fleetwave.node.gpu-inventory-reported.v1'
      UNION ALL
      SELECT node, epoch, seq, event_time, payload::jsonb FROM node_history_base
      WHERE event_type = 'io.fleetwave.node.gpu-inventory-reported.v1') i
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg((e ->> 'index')::int ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'uuid' ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'pciBusId' ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'pciDeviceId' ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'product' ORDER BY o), '{}'),
           coalesce(array_agg((e ->> 'memoryMiB')::bigint ORDER BY o), '{}'),
           coalesce(array_agg((e ->> 'migCapable')::boolean ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'migMode' ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'migModePending' ORDER BY o), '{}'),
           coalesce(array_agg(coalesce((e ->> 'vfsTotal')::int, 0) ORDER BY o), '{}'),
           coalesce(array_agg(coalesce((e ->> 'vfsEnabled')::int, 0) ORDER BY o), '{}'),
           coalesce(array_agg(e ->> 'health' ORDER BY o), '{}')
    FROM jsonb_array_elements(i.p -> 'gpus') WITH ORDINALITY AS a (e, o)) g
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg((e ->> 'index')::int ORDER BY o, xo), '{}'),
           coalesce(array_agg(x ->> 'profile' ORDER BY o, xo), '{}'),
           coalesce(array_agg((x ->> 'placementStart')::int ORDER BY o, xo), '{}'),
           coalesce(array_agg((x ->> 'placementSize')::int ORDER BY o, xo), '{}')
    FROM jsonb_array_elements(i.p -> 'gpus') WITH ORDINALITY AS a (e, o)
    CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(e -> 'instances')
        WHEN 'array' THEN e -> 'instances' ELSE '[]'::jsonb END) WITH ORDINALITY AS b (x, xo)) x
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(d ORDER BY f), '{}'), coalesce(array_agg(p ORDER BY f), '{}'),
           coalesce(array_agg(m ORDER BY f), '{}'), coalesce(array_agg(h ORDER BY f), '{}'),
           coalesce(array_agg(n ORDER BY f), '{}')
    FROM (SELECT e ->> 'pciDeviceId' AS d, e ->> 'product' AS p, e ->> 'migMode' AS m,
                 e ->> 'health' AS h, count(*)::int AS n, min(o) AS f
          FROM jsonb_array_elements(i.p -> 'gpus') WITH ORDINALITY AS a (e, o)
          GROUP BY 1, 2, 3, 4) k) c
ON CONFLICT (node, epoch, seq) DO NOTHING;
