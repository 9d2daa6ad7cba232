package io.fleetwave.agent.modules;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Loaded kernel modules from {@code proc/modules} (name, refcount, users) and {@code
 * sys/module/<m>/holders} under a host root.
 */
public final class ProcModules {
  private final Path hostRoot;

  public ProcModules(Path hostRoot) {
    this.hostRoot = hostRoot;
  }

  /** One proc/modules line: name, reference count and the modules using it. */
  public record LoadedModule(String name, int refcount, List<String> usedBy) {}

  public Map<String, LoadedModule> loaded() {
    Path file = hostRoot.resolve("proc/modules");
    Map<String, LoadedModule> modules = new LinkedHashMap<>();
    if (!Files.isRegularFile(file)) {
      return modules;
    }
    try {
      for (String line : Files.readAllLines(file)) {
        String[] f = line.strip().split("\\s+", -1);
        if (f.length < 4) {
          continue;
        }
        List<String> users = new ArrayList<>();
        for (String user : f[3].split(",", -1)) {
          if (!user.isBlank() && !user.equals("-")) {
            users.add(user);
          }
        }
        modules.put(f[0], new LoadedModule(f[0], parseInt(f[2]), List.copyOf(users)));
      }
    } catch (IOException e) {
      throw new ModuleException("cannot read " + file + ": " + e.getMessage());
    }
    return modules;
  }

  public Optional<LoadedModule> module(String name) {
    return Optional.ofNullable(loaded().get(name));
  }

  /** The entries of sys/module/NAME/holders (modules holding this one), sorted. */
  public List<String> holders(String name) {
    Path dir = hostRoot.resolve("sys/module").resolve(name).resolve("holders");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static int parseInt(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
