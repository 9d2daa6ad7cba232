package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The kinds of host Fleetwave supports; none is the default case. */
public enum HostKind {
  UBUNTU("ubuntu"),
  UBUNTU_DRIVER_CONTAINER("ubuntu-driver-container"),
  TALOS("talos"),
  COS("cos"),
  VGPU_HOST("vgpu-host");

  private final String wireName;

  HostKind(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static HostKind fromWireName(String name) {
    for (HostKind kind : values()) {
      if (kind.wireName.equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown host kind '"
            + name
            + "', expected one of "
            + Arrays.stream(values()).map(HostKind::wireName).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return wireName;
  }
}
