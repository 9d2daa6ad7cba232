package io.fleetwave.controlplane.readmodel;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How much of each node a listing carries. {@code full}: every GPU with its MIG instances (about
 * 2.6 KB a node of 8 GPUs). {@code brief}: the node's facts with its GPUs counted by model (a few
 * hundred bytes), no GPU or MIG-instance rows read: what a table of nodes shows.
 */
public enum NodeListView {
  FULL,
  BRIEF;

  /** The values the API takes, as written in its query parameter. */
  public static final List<String> WIRE_NAMES =
      Arrays.stream(values()).map(NodeListView::wireName).toList();

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static NodeListView fromWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
