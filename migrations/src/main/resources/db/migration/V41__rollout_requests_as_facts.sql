-- Issue 33, item 4, the last table: operators' requests (pause, resume, abort, rollback, promote)
-- are facts on fleet.control-facts now (OperatorRequested when asked, OperatorRequestHandled when
-- the engine answers), and rollout_requests is their projection, so a rebuilt database holds the
-- pending ones pending and the handled ones handled.
-- (Numbered 41 so that migrations written concurrently on other branches keep theirs.)

-- A request's id is carried in its fact, so it is the same after a rebuild: a UUID the request
-- chooses rather than a sequence a recreated database would start again.
ALTER TABLE rollout_requests ALTER COLUMN id DROP DEFAULT;
DROP SEQUENCE rollout_requests_id_seq;
ALTER TABLE rollout_requests ALTER COLUMN id TYPE uuid USING gen_random_uuid();

-- The rollout's row is a projection of fleet.rollout-events, the request's of fleet.control-facts:
-- a rebuild restores them from two topics, in no set order.
ALTER TABLE rollout_requests DROP CONSTRAINT rollout_requests_rollout_fkey;

-- Requests stored before this release have no facts: listed for the next start to publish
-- (ControlFactBackfill), one OperatorRequested each and an OperatorRequestHandled after it where
-- the engine had answered.
INSERT INTO facts_to_backfill (source, row_key) SELECT 'rollout_requests', id::text FROM rollout_requests;
