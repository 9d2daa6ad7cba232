package io.fleetwave.core.driver;

/** The driver artifact for one node, or why the requested version cannot serve it. */
public sealed interface DriverResolution {
  record Resolved(DriverArtifact artifact) implements DriverResolution {}

  /** The version cannot be delivered to or cannot drive this node; {@code reason} says which. */
  record Unservable(String reason) implements DriverResolution {}
}
