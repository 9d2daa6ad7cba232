package io.fleetwave.agent.kafka;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * A {@code --kafka-config} file: Java properties (UTF-8) of Kafka client settings, merged into
 * every client the agent creates. On Kubernetes it is a mounted Secret, since it usually holds
 * sasl.jaas.config or store passwords. Loading is strict where {@link Properties} is lenient: a
 * line that is not {@code key=value}, a bad escape, a key set twice or a key the agent owns ({@link
 * ClientOverrides}) is refused with the file and line. No message quotes a value.
 *
 * @param bootstrapServers {@code bootstrap.servers} from the file (an explicit --bootstrap wins)
 * @param overrides every other setting
 */
public record KafkaConfigFile(
    Path file, Optional<String> bootstrapServers, Map<String, Object> overrides) {
  private static final String BOOTSTRAP = "bootstrap.servers";

  public KafkaConfigFile {
    overrides = Map.copyOf(overrides);
  }

  /**
   * @throws IllegalArgumentException naming the file (and the line) when it cannot be read or a
   *     line is refused
   */
  public static KafkaConfigFile load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw problem(file, "no such file");
    } catch (CharacterCodingException e) {
      throw problem(file, "not UTF-8 text");
    } catch (IOException e) {
      throw problem(file, "cannot read it: " + e);
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    Map<String, Integer> lineOf = new HashMap<>();
    List<String> lines = text.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      int number = i + 1;
      String line = lines.get(i).stripLeading();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      StringBuilder logical = new StringBuilder(line);
      while (continues(lines.get(i)) && i + 1 < lines.size()) {
        logical.append('\n').append(lines.get(++i));
      }
      Map.Entry<String, String> setting = parse(file, number, logical.toString());
      Integer first = lineOf.putIfAbsent(setting.getKey(), number);
      if (first != null) {
        throw problem(
            file, "line " + number + " sets " + setting.getKey() + " again (line " + first + ")");
      }
      String why = ClientOverrides.owner(setting.getKey());
      if (why != null) {
        throw problem(
            file, "line " + number + ": " + ClientOverrides.refusal(setting.getKey(), why));
      }
      settings.put(setting.getKey(), setting.getValue());
    }
    Optional<String> bootstrap = Optional.ofNullable((String) settings.remove(BOOTSTRAP));
    if (bootstrap.isPresent() && bootstrap.get().isBlank()) {
      throw problem(file, "line " + lineOf.get(BOOTSTRAP) + ": " + BOOTSTRAP + " is empty");
    }
    return new KafkaConfigFile(file, bootstrap.map(String::strip), settings);
  }

  /** One logical line through {@link Properties}, which knows the escapes and separators. */
  private static Map.Entry<String, String> parse(Path file, int number, String logical) {
    Properties one = new Properties();
    try {
      one.load(new StringReader(logical));
    } catch (IllegalArgumentException e) {
      throw problem(file, "line " + number + " has a malformed \\uXXXX escape");
    } catch (IOException e) {
      throw new IllegalStateException("reading a string", e);
    }
    if (one.isEmpty()) {
      throw problem(file, "line " + number + " is not key=value");
    }
    String key = one.stringPropertyNames().iterator().next();
    String value = one.getProperty(key);
    if (key.isEmpty()) {
      throw problem(file, "line " + number + " has no key");
    }
    if (value.isEmpty() && logical.indexOf('=') < 0 && logical.indexOf(':') < 0) {
      throw problem(file, "line " + number + " is not key=value");
    }
    return Map.entry(key, value);
  }

  /** A line ending in an odd number of backslashes continues on the next one. */
  private static boolean continues(String line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }

  private static IllegalArgumentException problem(Path file, String what) {
    return new IllegalArgumentException("--kafka-config " + file + ": " + what);
  }

  /** The settings for a log line, secrets hidden. */
  public String describe() {
    Map<String, Object> all = new HashMap<>(overrides);
    bootstrapServers.ifPresent(b -> all.put(BOOTSTRAP, b));
    return ClientOverrides.masked(all);
  }
}
