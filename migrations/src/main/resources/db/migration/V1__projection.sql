-- The fleet projection: a read model folded from fleet.node-events. It can be dropped and rebuilt
-- from the log at any time; Kafka is the source of truth.

-- One row per node that has sent any event. Facts are null until its first NodeRegistered.
-- (last_epoch, last_seq) is the position of the newest event applied: an event is applied only when
-- it comes strictly after it, checked under a row lock in the same transaction as the update.
CREATE TABLE nodes (
    name            text        PRIMARY KEY,
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
    labels          jsonb       NOT NULL DEFAULT '{}'::jsonb,
    reasons         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    last_seen       timestamptz,
    last_epoch      bigint      NOT NULL,
    last_seq        bigint      NOT NULL
);

CREATE INDEX nodes_host_kind_idx ON nodes (host_kind);
CREATE INDEX nodes_labels_idx ON nodes USING gin (labels jsonb_path_ops);

-- The GPUs of a node as of its newest GpuInventoryReported (replaced as a whole on each report).
CREATE TABLE gpus (
    node             text    NOT NULL REFERENCES nodes (name) ON DELETE CASCADE,
    gpu_index        integer NOT NULL,
    uuid             text    NOT NULL,
    pci_bus_id       text    NOT NULL,
    pci_device_id    text    NOT NULL,
    product          text    NOT NULL,
    memory_mib       bigint  NOT NULL,
    mig_capable      boolean NOT NULL,
    mig_mode         text    NOT NULL,
    mig_mode_pending text    NOT NULL,
    vfs_total        integer NOT NULL,
    vfs_enabled      integer NOT NULL,
    health           text    NOT NULL,
    PRIMARY KEY (node, gpu_index)
);

CREATE INDEX gpus_pci_device_id_idx ON gpus (upper(pci_device_id));

CREATE TABLE gpu_instances (
    node            text    NOT NULL,
    gpu_index       integer NOT NULL,
    profile         text    NOT NULL,
    placement_start integer NOT NULL,
    placement_size  integer NOT NULL,
    PRIMARY KEY (node, gpu_index, placement_start),
    FOREIGN KEY (node, gpu_index) REFERENCES gpus (node, gpu_index) ON DELETE CASCADE
);

-- Append-only history of the applied events of each node.
CREATE TABLE node_events (
    node       text        NOT NULL,
    epoch      bigint      NOT NULL,
    seq        bigint      NOT NULL,
    event_id   text        NOT NULL,
    event_type text        NOT NULL,
    event_time timestamptz NOT NULL,
    payload    jsonb       NOT NULL,
    PRIMARY KEY (node, epoch, seq)
);
