-- Issue 35, item 2: provenance of every observed change. Both tables are the projection's, folded
-- from fleet.node-events alone (core.provenance.ChangeFold), in the transaction that applies the
-- events: a rebuild derives the same rows. Who asked for a change (the rollout, the person behind a
-- spec generation) is joined when read, from the desired-spec and rollout tables.

-- What the change fold keeps of each node between batches (NodeProvenance): the last observation
-- (aspect key -> value, e.g. {"driver": "580.65.06", "0/mig-mode": "enabled"}), whether driver and
-- GPUs were reported yet, the newest accepted spec generation, and the aspects the agent's steps
-- touched since the last inventory
-- ({"0/mig-mode": {"generation": 7, "running": false}}).
CREATE TABLE node_provenance (
    node                text    PRIMARY KEY REFERENCES nodes (name) ON DELETE CASCADE,
    observation         jsonb   NOT NULL,
    driver_seen         boolean NOT NULL,
    gpus_seen           boolean NOT NULL,
    accepted_generation bigint  NOT NULL,
    touched             jsonb   NOT NULL
);

-- Every observed change of a node's driver, or a GPU's MIG mode, MIG layout, VFs or health: from
-- what to what, when it was seen (the time of the event that revealed it, whose (epoch, seq) it
-- keeps), and what was going on then: the generation of the step that made it, the generation the
-- agent had accepted, the boot it came with (set when the NodeBooted of the same agent run, which
-- comes after the run's first reports, is applied). Append-only otherwise, like node_events.
CREATE TABLE node_changes (
    node                text        NOT NULL REFERENCES nodes (name) ON DELETE CASCADE,
    epoch               bigint      NOT NULL,
    seq                 bigint      NOT NULL,
    aspect              text        NOT NULL,
    gpu                 integer,
    event_time          timestamptz NOT NULL,
    before              text,
    after               text,
    step_generation     bigint,
    accepted_generation bigint      NOT NULL,
    boot_id             text,
    PRIMARY KEY (node, epoch, seq, aspect)
);

CREATE INDEX node_changes_node_time_idx ON node_changes (node, event_time);
CREATE INDEX node_changes_time_idx ON node_changes (event_time);
