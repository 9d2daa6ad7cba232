package io.fleetwave.events.yaml;

import java.util.List;
import java.util.Optional;

/**
 * A YAML document as a tree that remembers where each node starts, so that a rejected field can be
 * reported with its line. Jackson's {@code JsonNode} drops locations; this keeps them.
 */
public sealed interface YamlNode {
  /** 1-based line of the node's first token. */
  int line();

  /** What the node is, for error messages ("a mapping", "a list", "the string 'x'"). */
  String describe();

  record Mapping(List<Entry> entries, int line) implements YamlNode {
    public Mapping {
      entries = List.copyOf(entries);
    }

    public Optional<Entry> entry(String key) {
      return entries.stream().filter(e -> e.key().equals(key)).findFirst();
    }

    @Override
    public String describe() {
      return "a mapping";
    }
  }

  /** One key of a mapping, with the line of the key itself. */
  record Entry(String key, int line, YamlNode value) {}

  record Sequence(List<YamlNode> items, int line) implements YamlNode {
    public Sequence {
      items = List.copyOf(items);
    }

    @Override
    public String describe() {
      return "a list";
    }
  }

  /** A scalar; {@code kind} keeps what YAML made of it (a quoted "true" stays a string). */
  record Scalar(String text, Kind kind, int line) implements YamlNode {
    public enum Kind {
      STRING,
      INTEGER,
      FLOAT,
      BOOLEAN,
      NULL
    }

    @Override
    public String describe() {
      return switch (kind) {
        case STRING -> "the string '" + text + "'";
        case INTEGER, FLOAT -> "the number " + text;
        case BOOLEAN -> "the boolean " + text;
        case NULL -> "null";
      };
    }
  }
}
