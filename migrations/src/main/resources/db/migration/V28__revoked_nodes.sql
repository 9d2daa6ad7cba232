-- Revocation revokes the node, not only its keys (issue 32, finding 2): while a node has a row
-- here every enrolment for it is refused, whatever the credential (join token, service account),
-- and the rollout planner leaves it out. An administrator's re-admission deletes the row; the audit
-- log keeps both. The node's old keys stay revoked in node_keys either way.
CREATE TABLE revoked_nodes (
    node        text        PRIMARY KEY,
    revoked_at  timestamptz NOT NULL,
    revoked_by  text        NOT NULL
);
