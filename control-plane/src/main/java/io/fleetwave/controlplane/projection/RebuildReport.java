package io.fleetwave.controlplane.projection;

import java.util.List;
import java.util.Map;

/**
 * The outcome of a rebuild: whether the projection rebuilt from offset 0 equals the live one, and
 * the first differing rows when it does not ({@code table: live-only|rebuild-only row}).
 */
public record RebuildReport(
    boolean equal,
    long recordsReplayed,
    long recordsRefused,
    Map<String, Long> rebuiltRows,
    List<String> differences,
    long durationMillis) {}
