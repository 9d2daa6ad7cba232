-- MIG layouts imported in the mig-parted format, and rollouts as created (execution comes later).
-- (V2 belongs to the desired-spec work.)

-- One row per named mig-parted config. yaml is the config as mig-parted writes it (one config
-- under mig-configs), definition the parsed entries as JSON; re-importing a name replaces it.
CREATE TABLE mig_configs (
    name        text        PRIMARY KEY,
    yaml        text        NOT NULL,
    definition  jsonb       NOT NULL,
    source      text        NOT NULL,
    imported_at timestamptz NOT NULL DEFAULT now()
);

-- A rollout: the request, the plan shown for it, and its state. Only 'created' and 'aborted' are
-- written so far; the engine will add the running states and 'completed'.
CREATE TABLE rollouts (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL,
    spec       jsonb       NOT NULL,
    plan       jsonb       NOT NULL,
    state      text        NOT NULL CHECK (state IN ('created', 'running', 'paused', 'completed', 'aborted', 'rolling-back', 'rolled-back')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX rollouts_created_at_idx ON rollouts (created_at DESC, id);

-- The planned nodes of each rollout and their wave (1 = the canary; PlannedWave.number). "A node belongs to at most one
-- active rollout" is checked on insert under a lock on the rollouts table.
CREATE TABLE rollout_nodes (
    rollout uuid    NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    node    text    NOT NULL,
    wave    integer NOT NULL,
    PRIMARY KEY (rollout, node)
);

CREATE INDEX rollout_nodes_node_idx ON rollout_nodes (node);
