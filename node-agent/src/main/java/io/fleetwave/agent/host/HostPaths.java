package io.fleetwave.agent.host;

import java.nio.file.Path;

/** Host paths (as the host sees them) resolved under the host root the agent sees. */
public final class HostPaths {
  private HostPaths() {}

  public static Path resolve(Path hostRoot, String hostPath) {
    String relative = hostPath.replaceFirst("^/+", "");
    return relative.isEmpty() ? hostRoot : hostRoot.resolve(relative);
  }

  /** Joins a host directory and a relative entry the way reasons print them. */
  public static String join(String hostDir, String relative) {
    return hostDir.endsWith("/") ? hostDir + relative : hostDir + "/" + relative;
  }
}
