-- Who asked for an operator action (the token subject); the engine records it in the event the
-- request becomes. Requests queued before this column existed read as 'anonymous'.
ALTER TABLE rollout_requests ADD COLUMN actor text NOT NULL DEFAULT 'anonymous';

-- Who created a rollout; the engine records it in RolloutCreated.
ALTER TABLE rollouts ADD COLUMN created_by text NOT NULL DEFAULT 'anonymous';
