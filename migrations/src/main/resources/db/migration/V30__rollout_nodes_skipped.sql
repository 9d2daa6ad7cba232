-- Issue 32: a node revoked while its rollout runs is taken out of it. A pending one is never
-- started and shows as skipped (reason "revoked"); one in flight fails (reason "revoked").
ALTER TABLE rollout_node_states DROP CONSTRAINT rollout_node_states_state_check;
ALTER TABLE rollout_node_states ADD CONSTRAINT rollout_node_states_state_check
    CHECK (state IN ('pending', 'in-flight', 'succeeded', 'failed', 'skipped'));
