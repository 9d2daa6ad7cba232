package io.fleetwave.controlplane.security;

import java.util.List;

/**
 * Refuses a secret given as a JVM argument ({@code -Dkey=value}): every user of the host reads a
 * process's command line ({@code ps}, {@code /proc/<pid>/cmdline}), so a secret there is public.
 */
public final class CommandLineSecrets {
  private CommandLineSecrets() {}

  /**
   * @param property the secret's configuration key
   * @param instead where to put it instead, for the message
   * @param jvmArguments the JVM's command-line arguments (RuntimeMXBean#getInputArguments)
   * @throws IllegalArgumentException naming the key and where to put it, never quoting the value
   */
  public static void refuse(String property, String instead, List<String> jvmArguments) {
    if (jvmArguments.stream().anyMatch(a -> a.startsWith("-D" + property + "="))) {
      throw new IllegalArgumentException(
          property
              + " was given on the command line (-D"
              + property
              + "=...), where every user of the host can read it: "
              + instead);
    }
  }
}
