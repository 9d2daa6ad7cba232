-- Issue 33, item 4: the audit log, the desired specs and their generations, the one-shot command
-- counters and the MIG configs are projections of facts on fleet.control-facts now. The rows a
-- database held before this release have no fact yet: their keys are listed here as the migration
-- runs (so rows written afterwards, which have their facts, are never listed), and the control
-- plane's next start publishes one fact per listed row, marks it applied and removes the row from
-- this list in one transaction (ControlFactBackfill). A database recreated empty lists nothing.
-- (Numbered 34 so that migrations written concurrently on other branches keep theirs.)
CREATE TABLE facts_to_backfill (
    source  text NOT NULL,  -- the table the row is in
    row_key text NOT NULL,  -- the row's key there
    PRIMARY KEY (source, row_key)
);

INSERT INTO facts_to_backfill (source, row_key) SELECT 'audit_log', id::text FROM audit_log;
INSERT INTO facts_to_backfill (source, row_key) SELECT 'desired_specs', node FROM desired_specs;
INSERT INTO facts_to_backfill (source, row_key)
    SELECT 'command_generations', node FROM command_generations;
INSERT INTO facts_to_backfill (source, row_key) SELECT 'mig_configs', name FROM mig_configs;
