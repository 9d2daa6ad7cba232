-- Issue 33, item 4: PostgreSQL is a projection again. The facts only the control plane knows
-- (node keys enrolled, nodes revoked and re-admitted, join tokens created and used, MIG config
-- files imported) are events on fleet.control-facts, appended before the tables change; node_keys,
-- revoked_nodes, join_tokens and mig_configs are their projection. A fact is applied by
-- the request that appended it, by every replica following the topic and by a rebuild, and only
-- the first of them changes anything: its envelope id is recorded here in the same transaction.
CREATE TABLE applied_facts (
    id text PRIMARY KEY
);
