-- Rollout execution. fleet.rollout-events is the truth; these tables are its projection, written by
-- the engine after Kafka acknowledged each event and rebuilt from the log when a new leader starts.

-- Where a rollout stands, as folded from its events (state itself stays in rollouts.state).
ALTER TABLE rollouts
    ADD COLUMN last_seq           bigint  NOT NULL DEFAULT 0,
    ADD COLUMN current_wave       integer NOT NULL DEFAULT 0,
    ADD COLUMN awaiting_promotion boolean NOT NULL DEFAULT false,
    ADD COLUMN status_reason      text;

-- One row per planned node: where it is in the rollout (forward, then possibly rollback).
CREATE TABLE rollout_node_states (
    rollout       uuid        NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    node          text        NOT NULL,
    wave          integer     NOT NULL,
    phase         text        NOT NULL CHECK (phase IN ('forward', 'rollback')),
    state         text        NOT NULL CHECK (state IN ('pending', 'in-flight', 'succeeded', 'failed')),
    generation    bigint,
    reason        text,
    started_at    timestamptz,
    finished_at   timestamptz,
    PRIMARY KEY (rollout, node)
);

-- Every event of every rollout, in order: the history API and the server-sent-events stream read it.
CREATE TABLE rollout_event_log (
    rollout    uuid        NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    seq        bigint      NOT NULL,
    event_type text        NOT NULL,
    event_time timestamptz NOT NULL,
    data       jsonb       NOT NULL,
    PRIMARY KEY (rollout, seq)
);

-- Operator requests (pause, resume, abort, rollback, promote): any replica writes them, the engine
-- leader turns each into an event (or refuses it with a reason) and marks it handled.
CREATE TABLE rollout_requests (
    id           bigserial   PRIMARY KEY,
    rollout      uuid        NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    action       text        NOT NULL CHECK (action IN ('pause', 'resume', 'abort', 'rollback', 'promote')),
    reason       text,
    requested_at timestamptz NOT NULL DEFAULT now(),
    handled_at   timestamptz,
    outcome      text
);

CREATE INDEX rollout_requests_pending_idx ON rollout_requests (rollout) WHERE handled_at IS NULL;
