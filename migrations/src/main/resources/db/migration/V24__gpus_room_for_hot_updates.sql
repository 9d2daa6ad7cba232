-- The projection now writes an inventory as its difference to the stored rows (ProjectionTables):
-- a GPU whose MIG mode, health or VF count changed is updated in place rather than deleted and
-- inserted again. As for nodes (V23), a full page has no room for the new row version, so each such
-- update would insert into both indexes of gpus. Leaving a third of each page free lets PostgreSQL
-- keep the new version on the same page and skip the indexes (a HOT update: no indexed column
-- changes). Applies to pages written from now on.
ALTER TABLE gpus SET (fillfactor = 70);
