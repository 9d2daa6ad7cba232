-- Desired node specs (owned by the control plane, not rebuilt from fleet.node-events) and the
-- reconcile progress of each node (a projection folded from the agents' progress events).

-- The newest desired spec of each node, as published to the compacted fleet.node-desired topic.
-- The row is locked, bumped and committed in the same transaction that waits for the broker's
-- acknowledgement of the signed ApplyNodeSpec, so a generation is committed only once it is in
-- Kafka and two concurrent PUTs for one node can never publish the same generation.
CREATE TABLE desired_specs (
    node       text        PRIMARY KEY,
    generation bigint      NOT NULL CHECK (generation > 0),
    spec       jsonb       NOT NULL,
    updated_at timestamptz NOT NULL
);

-- The per-node counter of one-shot commands (ResetGpu, Reprobe): a nonce that only grows. It is
-- committed before the command is sent; a failed send leaves a gap, never a reused value.
CREATE TABLE command_generations (
    node       text        PRIMARY KEY,
    generation bigint      NOT NULL CHECK (generation > 0),
    updated_at timestamptz NOT NULL
);

-- Projection: where each node's reconcile stands (one row per node that sent a progress event).
CREATE TABLE node_reconcile (
    node                  text    PRIMARY KEY REFERENCES nodes (name) ON DELETE CASCADE,
    accepted_generation   bigint  NOT NULL DEFAULT 0,
    applied_generation    bigint  NOT NULL DEFAULT 0,
    gate                  text,
    gate_generation       bigint,
    gate_reason           text,
    boot_id               text,
    boot_pending          boolean NOT NULL DEFAULT false,
    failure_generation    bigint,
    failure_step          text,
    failure_gpu           integer,
    failure_reason        text,
    failure_holder        text,
    rejection_generation  bigint,
    rejection_code        text,
    rejection_reason      text
);

-- Projection: the steps of the newest accepted generation of each node, in plan order.
CREATE TABLE reconcile_steps (
    node           text    NOT NULL REFERENCES node_reconcile (node) ON DELETE CASCADE,
    generation     bigint  NOT NULL,
    ordinal        integer NOT NULL,
    kind           text    NOT NULL,
    gpu            integer,
    detail         text    NOT NULL,
    deadline_ms    bigint  NOT NULL,
    state          text    NOT NULL,
    reason         text,
    holder         text,
    elapsed_ms     bigint,
    PRIMARY KEY (node, ordinal)
);
