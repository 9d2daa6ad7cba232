-- The digest of the GPU and MIG-instance rows of the node's last applied inventory, written in the
-- same transaction as those rows. An inventory whose digest equals it restates the rows as they
-- are (an agent's restart, a reprobe, a declared gap), and the projection skips its GPU and
-- instance statements: about 30 us of PostgreSQL's time per reported GPU, three lookups each,
-- even when nothing changes. NULL (every node before this migration) means unknown: the next
-- inventory is written and sets it.
ALTER TABLE nodes ADD COLUMN inventory_digest text;
