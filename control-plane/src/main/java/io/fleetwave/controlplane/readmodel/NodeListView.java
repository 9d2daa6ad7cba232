package io.fleetwave.controlplane.readmodel;

import io.fleetwave.events.json.WireNamed;
import java.util.List;

/**
 * How much of each node a listing carries. {@code full}: every GPU with its MIG instances (about
 * 2.6 KB a node of 8 GPUs). {@code brief}: the node's facts with its GPUs counted by model (a few
 * hundred bytes), no GPU or MIG-instance rows read: what a table of nodes shows.
 */
@WireNamed.Called("node listing view")
public enum NodeListView implements WireNamed {
  FULL,
  BRIEF;

  /** The values the API takes, as written in its query parameter. */
  public static final List<String> WIRE_NAMES = WireNamed.wireNames(NodeListView.class);
}
