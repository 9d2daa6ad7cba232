-- Issue 11: the rollout engine is isolated per rollout, and its takeover does not grow with the
-- age of fleet.rollout-events.

-- A record of a rollout's log that cannot be folded (does not decode, contradicts the rollout, too
-- large) fails that rollout only: RolloutFailed, state 'failed', the record named in status_reason.
ALTER TABLE rollouts DROP CONSTRAINT rollouts_state_check;
ALTER TABLE rollouts ADD CONSTRAINT rollouts_state_check
    CHECK (state IN ('created', 'running', 'paused', 'completed', 'aborted', 'rolling-back', 'rolled-back',
                     'failed'));

-- Where a rollout's records start in fleet.rollout-events (its key's partition, the offset of its
-- first record): an engine taking over reads the live rollouts from there, never the finished
-- ones. Null until the engine logged it, and for rollouts logged before this column (read from 0).
ALTER TABLE rollouts
    ADD COLUMN log_partition integer,
    ADD COLUMN log_offset    bigint;
