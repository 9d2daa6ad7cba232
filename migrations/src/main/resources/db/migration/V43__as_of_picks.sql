-- As-of reads that cost an index probe per node, whatever the history's length (issue 35 item 1).
--
-- A node's registration (or inventory) as of a moment T is its newest row in the applied order
-- among those stamped at or before T (V42). Picking it with DISTINCT ON read the keys of every row
-- the history holds, before and after T, for the whole fleet: at 10,000 nodes a page as of T slowed
-- as the history after T grew (control-plane/BENCH.md, "As-of reads"), and a 30-day history would
-- have been read whole for every page.
--
-- state_from is the least event time of the row and of every row of its node applied after it. It
-- never decreases in the applied order, and a row's state_from is at or before T exactly when some
-- row from it on is stamped at or before T. So the rows with state_from <= T are the node's rows up
-- to the pick, and the pick is the one of them with the greatest (state_from, epoch, seq): the first
-- entry of an index descent on (node, state_from DESC, epoch DESC, seq DESC). With clocks that only
-- go forward state_from is the event time; a row stamped earlier than rows applied before it (a
-- clock set back) lowers theirs, which the projection does in the transaction that writes the row.

ALTER TABLE registration_history ADD COLUMN state_from timestamptz;
ALTER TABLE inventory_history ADD COLUMN state_from timestamptz;

UPDATE registration_history h SET state_from = m.state_from
FROM (SELECT node, epoch, seq,
             min(event_time) OVER (PARTITION BY node ORDER BY epoch DESC, seq DESC) AS state_from
      FROM registration_history) m
WHERE (h.node, h.epoch, h.seq) = (m.node, m.epoch, m.seq);

UPDATE inventory_history h SET state_from = m.state_from
FROM (SELECT node, epoch, seq,
             min(event_time) OVER (PARTITION BY node ORDER BY epoch DESC, seq DESC) AS state_from
      FROM inventory_history) m
WHERE (h.node, h.epoch, h.seq) = (m.node, m.epoch, m.seq);

ALTER TABLE registration_history ALTER COLUMN state_from SET NOT NULL;
ALTER TABLE inventory_history ALTER COLUMN state_from SET NOT NULL;

-- The keys lose the columns V42 included for the scans this replaces (every write updated them).
ALTER TABLE registration_history DROP CONSTRAINT registration_history_pkey,
    ADD PRIMARY KEY (node, epoch, seq);
ALTER TABLE inventory_history DROP CONSTRAINT inventory_history_pkey,
    ADD PRIMARY KEY (node, epoch, seq);

CREATE INDEX registration_history_pick ON registration_history
    (node, state_from DESC, epoch DESC, seq DESC);
-- With the GPU counts: the summary as of T reads them from the index alone.
CREATE INDEX inventory_history_pick ON inventory_history
    (node, state_from DESC, epoch DESC, seq DESC)
    INCLUDE (count_device, count_product, count_mig_mode, count_health, count_gpus);
