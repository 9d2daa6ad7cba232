package io.fleetwave.core.driver;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * NVIDIA's driver image tag rules, as the GPU Operator applies them:
 *
 * <ul>
 *   <li>OS tag: {@code <os-id><os-version>}, with only the major version for RHEL, Rocky and Oracle
 *       Linux ({@code rhel9}, {@code rocky8}, {@code ubuntu22.04}).
 *   <li>Driver container: {@code <version>-<os tag>}.
 *   <li>Precompiled: {@code <branch>-<kernel>-<os tag>}; the kernel loses its arch suffix ({@code
 *       x86_64}, {@code aarch64}, with {@code _64k} variants), {@code _} becomes {@code .}, a
 *       trailing {@code .} is dropped and it is lower-cased (gpu-operator's
 *       getSanitizedKernelVersion). NVIDIA publishes precompiled images per driver branch ({@code
 *       driver.version=<branch>}).
 * </ul>
 */
public final class DriverImageTags {
  private static final Set<String> MAJOR_ONLY = Set.of("rhel", "rocky", "ol");
  private static final Pattern ARCH = Pattern.compile("x86_64(?:_64k)?|aarch64(?:_64k)?");

  private DriverImageTags() {}

  public static String osTag(String osId, String osVersion) {
    String id = osId.trim().toLowerCase(Locale.ROOT);
    String version = osVersion.trim();
    if (MAJOR_ONLY.contains(id)) {
      int dot = version.indexOf('.');
      version = dot < 0 ? version : version.substring(0, dot);
    }
    return id + version;
  }

  public static String sanitizedKernel(String kernel) {
    String sanitized = ARCH.matcher(kernel.trim()).replaceAll("").replace('_', '.');
    while (sanitized.endsWith(".")) {
      sanitized = sanitized.substring(0, sanitized.length() - 1);
    }
    return sanitized.toLowerCase(Locale.ROOT);
  }

  public static String containerTag(DriverVersion version, String osTag) {
    return version + "-" + osTag;
  }

  public static String precompiledTag(DriverVersion version, String kernel, String osTag) {
    return version.branch() + "-" + sanitizedKernel(kernel) + "-" + osTag;
  }
}
