-- Issue 13/14: a rollout's page reads its summary and its per-node states a page at a time.

-- Per-node states by wave then name (GET .../nodes pages in that order, ?wave= filters on it).
-- Wave and node never change once written, so the engine's updates of a node's state stay HOT.
CREATE INDEX rollout_node_states_wave_idx ON rollout_node_states (rollout, wave, node);

-- The few milestone events of a rollout's log (wave started/completed/promoted, paused) among its
-- tens of thousands of node events: the summary's wave times and who paused it. The predicate is
-- repeated verbatim by RolloutProgressReader so that PostgreSQL uses this index.
CREATE INDEX rollout_event_log_milestones_idx ON rollout_event_log (rollout, seq)
    WHERE (event_type LIKE 'io.fleetwave.rollout.wave-%'
           OR event_type LIKE 'io.fleetwave.rollout.paused.%');
