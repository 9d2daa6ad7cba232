-- A rollout's plan as the API shows it, when that is not the plan itself: above 500 planned nodes
-- the plan is cut to a few KB (each wave's first 50 batches with node counts instead of nodes, the
-- first 50 excluded nodes, truncated: true; control-plane rollout/store/ShownPlan). The cut was made
-- in PostgreSQL on each first read of a rollout's full view, which read the whole stored plan (65 MB
-- of jsonb at 100,000 nodes), and the 201 of a rollout's creation carried the whole plan. It is made
-- once now, by the control plane when it creates the rollout. NULL: the plan is shown as planned.
ALTER TABLE rollouts ADD COLUMN shown_plan jsonb;

-- Rollouts created before: the same cut, made here once.
UPDATE rollouts r SET shown_plan = (plan - 'waves' - 'excluded') || jsonb_build_object(
    'truncated', true,
    'excludedCount', jsonb_array_length(coalesce(plan -> 'excluded', '[]')),
    'excluded', coalesce((SELECT jsonb_agg(e ORDER BY i)
                          FROM jsonb_array_elements(coalesce(plan -> 'excluded', '[]'))
                               WITH ORDINALITY x (e, i)
                          WHERE i <= 50), '[]'),
    'waves', coalesce((SELECT jsonb_agg((w - 'batches') || jsonb_build_object(
                           'batchCount', jsonb_array_length(w -> 'batches'),
                           'nodeCount', (SELECT coalesce(sum(jsonb_array_length(b -> 'nodes')), 0)
                                         FROM jsonb_array_elements(w -> 'batches') b),
                           'batches', coalesce((SELECT jsonb_agg((b - 'nodes') || jsonb_build_object(
                                                    'nodeCount', jsonb_array_length(b -> 'nodes'))
                                                  ORDER BY j)
                                                FROM jsonb_array_elements(w -> 'batches')
                                                     WITH ORDINALITY y (b, j)
                                                WHERE j <= 50), '[]'))
                         ORDER BY i)
                       FROM jsonb_array_elements(plan -> 'waves') WITH ORDINALITY x (w, i)), '[]'))
WHERE (SELECT count(*) FROM rollout_nodes p WHERE p.rollout = r.id) > 500;
