package io.fleetwave.cli;

/** What {@code -o} accepts. */
public enum OutputFormat {
  table,
  json,
  yaml
}
