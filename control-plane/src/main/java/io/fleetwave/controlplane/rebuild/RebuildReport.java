package io.fleetwave.controlplane.rebuild;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a rebuild: whether the projection rebuilt from the node snapshots and every
 * retained node event (from offset 0 when Kafka's retention has deleted none) equals the live one,
 * and the first differing rows when it does not ({@code table: live-only|rebuild-only row}). The
 * node history is compared from {@code historyComparedFrom} (the retention) and after each node's
 * snapshot only.
 */
public record RebuildReport(
    boolean equal,
    long snapshotsLoaded,
    Instant historyComparedFrom,
    long recordsReplayed,
    long recordsRefused,
    Map<String, Long> rebuiltRows,
    List<String> differences,
    long durationMillis) {}
