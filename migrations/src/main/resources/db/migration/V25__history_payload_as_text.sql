-- The node history keeps each event's payload as the node sent it (the text of its data object),
-- and only ever reads it back whole (GET /api/v1/nodes/{name}/events). As jsonb, PostgreSQL parsed
-- and converted every payload on insert: an 8-GPU inventory (3.4 KB) cost about 54 us of the
-- database's time, against about 2 us stored as text (same compression, same size), and the
-- history insert was 23 % of PostgreSQL's time in the projection bench's backlog. The projection
-- decoded every payload before storing it, so the text is JSON; readers parse it.
-- Comparisons of history rows (projection rebuild) compare payloads as jsonb, so rows stored before
-- this migration (jsonb's own text form) equal the same events stored as received.
ALTER TABLE node_events ALTER COLUMN payload TYPE text USING payload::text;
