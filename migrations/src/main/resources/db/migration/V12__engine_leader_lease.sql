-- The rollout engine's leader lease (issue 11 item 5), replacing the session advisory lock: one
-- row, one holder at a time. A replica takes the lease only once it has expired (by this server's
-- clock), and taking it issues the next term, so terms grow by one per leader and never repeat.
-- Every append to fleet.rollout-events carries its writer's term (the envelope's epoch) and the
-- fold ignores an append from a term lower than one it has seen, so a leader that lost the lease
-- without knowing it cannot act on a rollout its successor runs. The holder renews every third of
-- the lease; it stops acting before expires_at by its own monotonic clock, so a leader whose
-- connection silently died is replaced within a lease and a poll, whatever TCP does.
-- (Numbered 12 so that migrations written concurrently on other branches keep theirs.)
CREATE TABLE engine_leader (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    term       bigint      NOT NULL CHECK (term >= 0),
    holder     text        NOT NULL,
    renewed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
INSERT INTO engine_leader (term, holder, renewed_at, expires_at)
VALUES (0, '', now(), '-infinity');
