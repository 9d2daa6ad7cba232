-- Every batch of the projection rewrites the row of each node it touches (position, last_seen; a
-- heartbeat does nothing else). With the default fillfactor (100) a page has no room for the new
-- row version, so each such update is a non-HOT update that inserts into every index of nodes,
-- the GIN index on labels included. Leaving a third of each page free lets PostgreSQL keep the new
-- version on the same page and skip the indexes (a HOT update: no indexed column changes).
-- Applies to pages written from now on; existing pages gain room as rows are updated and pruned.
ALTER TABLE nodes SET (fillfactor = 70);
