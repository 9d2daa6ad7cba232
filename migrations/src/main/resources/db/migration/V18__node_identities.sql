-- Node identities (issue 12 item 6): the public keys nodes enrolled and the one-time join tokens
-- hosts outside Kubernetes enroll with. The projection and the rollout engine accept a record of
-- fleet.node-events only if it is signed by a key enrolled here for its node and not revoked.

-- One row per key a node enrolled (a read-only host enrolls a new one at each boot). Keys are
-- never deleted: revoking marks them, so a revoked node's events keep being refused, rebuilds
-- included.
CREATE TABLE node_keys (
    key_id      text        PRIMARY KEY,          -- sha256:<base64url of the X.509 encoding>
    node        text        NOT NULL,
    public_key  text        NOT NULL,             -- X.509 PEM
    credential  text        NOT NULL,             -- how it enrolled: join token id, service account
    enrolled_at timestamptz NOT NULL,
    revoked_at  timestamptz,
    revoked_by  text
);
CREATE INDEX node_keys_node ON node_keys (node);

-- One-time join tokens ("<id>.<secret>", as kubeadm's): only the SHA-256 of the secret is kept.
CREATE TABLE join_tokens (
    id          text        PRIMARY KEY,
    secret_hash bytea       NOT NULL,
    node        text,                             -- null: any node name may use it
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    used_by     text
);
