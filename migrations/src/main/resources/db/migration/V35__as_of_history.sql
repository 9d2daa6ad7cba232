-- The fleet as of a past moment (issue 35, item 1): a node's answer shows its desired generation,
-- and the version distribution whether it runs its desired driver, but desired_specs keeps only
-- each node's newest spec. This keeps every generation a node was given, with when it was set, so
-- an as-of read takes the newest one set at or before its moment. Written with desired_specs, in
-- the same statement, from the same DesiredSpecSet facts (fleet.control-facts), so a rebuild of the
-- facts rebuilds it and compares it like the other fact tables. A row per spec change, a few a
-- node a week: kept as long as the database, not dropped with the node history's partitions.
CREATE TABLE desired_spec_history (
    node       text        NOT NULL,
    generation bigint      NOT NULL CHECK (generation > 0),
    spec       jsonb       NOT NULL,
    set_at     timestamptz NOT NULL,
    PRIMARY KEY (node, generation)
);

-- The specs set before this migration: each node's newest is all that is known of them.
INSERT INTO desired_spec_history (node, generation, spec, set_at)
SELECT node, generation, spec, updated_at FROM desired_specs;

-- The node history's day partitions past the retention are dropped whole (V11), and with them the
-- registration and inventory a node sent before, which as-of reads still need: a node that has not
-- registered again since is, at any kept time, what its last registration before said. Before it
-- drops them, the partition maintenance keeps here each node's newest registration and newest
-- inventory of the dropped history, and its progress events (a few per spec, the reconcile state
-- is their fold), so that a read as of the oldest kept time starts from the state the node had.
-- Not a part of the projection (not rebuilt, not compared): a rebuilt database answers as of the
-- history its rebuild holds.
CREATE TABLE node_history_base (
    node       text        NOT NULL,
    epoch      bigint      NOT NULL,
    seq        bigint      NOT NULL,
    event_id   text        NOT NULL,
    event_type text        NOT NULL,
    event_time timestamptz NOT NULL,
    payload    text        NOT NULL,
    PRIMARY KEY (node, epoch, seq)
);
