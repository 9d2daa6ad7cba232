-- node_changes without its foreign key to nodes (issue 36, item 1).
--
-- node_changes is history, append-only like node_events, registration_history and
-- inventory_history, none of which refers to nodes: the projection writes each change in the
-- transaction that ensures and locks its node's row, so a change never lacks its node, and no node
-- is ever deleted. The key checked every inserted change against nodes, an index probe and a row
-- lock per row; in the projection bench's backlog, where the fleet reports a change in most
-- inventories, node_changes was the busiest statement (36 % of PostgreSQL's time, about 16 us a
-- row: control-plane/BENCH.md, 2026-12-07). A test that deletes nodes deletes their changes itself.

ALTER TABLE node_changes DROP CONSTRAINT node_changes_node_fkey;
