-- MIG instances inside their GPU's row (issue 36, item 1).
--
-- gpu_instances was a table of its own, a row per instance with a foreign key to its GPU. An
-- inventory restates a node's GPUs as a whole, so the projection looked every reported instance
-- up three times (gone, changed, new), checked each new one against its GPU row and deleted the
-- unreported ones: 34 % of PostgreSQL's time in the projection bench's backlog, 256 ms a batch,
-- about 80 us an instance (control-plane/BENCH.md, 2026-12-06). A GPU's instances change only
-- with its MIG layout, which an inventory reports per GPU; kept in the GPU's row, they are written
-- with it, in the statement that writes the GPU and only when the GPU's row changes at all.
--
-- gpus.instances: the GPU's instances as reported, [{"profile": "3g.40gb", "placement_start": 0,
-- "placement_size": 4}, ...]; NULL is read as none (a snapshot published before this migration has
-- no such column: a rebuild loads it as NULL, and its next inventory writes it). gpu_instances is
-- a view of the same rows and columns as the table it replaces, so the reads keep their SQL.

ALTER TABLE gpus ADD COLUMN instances jsonb;

UPDATE gpus g
SET instances = coalesce(
        (SELECT jsonb_agg(jsonb_build_object('profile', i.profile,
                                             'placement_start', i.placement_start,
                                             'placement_size', i.placement_size)
                          ORDER BY i.placement_start)
         FROM gpu_instances i
         WHERE i.node = g.node AND i.gpu_index = g.gpu_index),
        '[]'::jsonb);

-- The dashboards' layout string, read from the GPU's row (the same columns as V17's).
CREATE OR REPLACE VIEW reports.gpu_layouts AS
SELECT g.node,
       g.gpu_index,
       upper(g.pci_device_id) AS pci_device_id,
       g.product,
       g.mig_mode,
       g.health,
       CASE g.mig_mode
           WHEN 'enabled' THEN coalesce(
               (SELECT string_agg(i.profile, '+' ORDER BY i.placement_start)
                FROM jsonb_to_recordset(coalesce(g.instances, '[]'::jsonb))
                         AS i(profile text, placement_start integer, placement_size integer)),
               'MIG on, no instances')
           WHEN 'disabled' THEN 'MIG off'
           ELSE 'no MIG'
       END AS layout
FROM gpus g;

DROP TABLE gpu_instances;

CREATE VIEW gpu_instances AS
SELECT g.node, g.gpu_index, i.profile, i.placement_start, i.placement_size
FROM gpus g
CROSS JOIN LATERAL jsonb_to_recordset(coalesce(g.instances, '[]'::jsonb))
    AS i(profile text, placement_start integer, placement_size integer);

-- Every node's next snapshot carries its instances in its GPU rows.
DELETE FROM node_snapshot_marks;
