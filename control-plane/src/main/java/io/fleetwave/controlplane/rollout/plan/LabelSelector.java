package io.fleetwave.controlplane.rollout.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A Kubernetes label selector in its string form: comma-separated requirements, all of which must
 * hold: {@code key=value} (or {@code ==}), {@code key!=value}, {@code key in (a,b)}, {@code key
 * notin (a)}, {@code key} (exists), {@code !key} (does not exist). Parsing is strict: anything else
 * is refused with the position and what was expected. (Written here because the only parser among
 * the project's dependencies lives in the Kubernetes API machinery, not in fabric8's model.)
 */
public record LabelSelector(List<Requirement> requirements) {
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public LabelSelector {
    requirements = List.copyOf(requirements);
  }

  public enum Operator {
    EQUALS,
    NOT_EQUALS,
    IN,
    NOT_IN,
    EXISTS,
    DOES_NOT_EXIST
  }

  public record Requirement(String key, Operator operator, Set<String> values) {
    public Requirement {
      values = Set.copyOf(values);
    }

    public boolean matches(Map<String, String> labels) {
      String value = labels.get(key);
      return switch (operator) {
        case EQUALS, IN -> value != null && values.contains(value);
        case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
        case EXISTS -> value != null;
        case DOES_NOT_EXIST -> value == null;
      };
    }
  }

  public boolean matches(Map<String, String> labels) {
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  /** Parses a selector; blank means no requirement. Throws IllegalArgumentException. */
  public static LabelSelector parse(String text) {
    if (text == null || text.isBlank()) {
      return new LabelSelector(List.of());
    }
    return new LabelSelector(new Parser(text).requirements());
  }

  /** Checks a label key: optional DNS-subdomain prefix and a name of at most 63 characters. */
  public static void checkKey(String key) {
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      if (prefix.isEmpty() || prefix.length() > 253 || !PREFIX.matcher(prefix).matches()) {
        throw new IllegalArgumentException("label key '" + key + "' has an invalid prefix");
      }
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "label key '"
              + key
              + "' is invalid: a name of at most 63 letters, digits, '-', '_' or '.',"
              + " starting and ending with a letter or digit");
    }
  }

  private static final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = text;
    }

    List<Requirement> requirements() {
      List<Requirement> out = new ArrayList<>();
      do {
        out.add(requirement());
        skipSpaces();
      } while (accept(","));
      if (pos < text.length()) {
        throw error("expected ',' or the end of the selector");
      }
      return out;
    }

    private Requirement requirement() {
      skipSpaces();
      if (accept("!")) {
        return new Requirement(key(), Operator.DOES_NOT_EXIST, Set.of());
      }
      String key = key();
      skipSpaces();
      if (accept("!=")) {
        return new Requirement(key, Operator.NOT_EQUALS, Set.of(value()));
      }
      if (accept("==") || accept("=")) {
        return new Requirement(key, Operator.EQUALS, Set.of(value()));
      }
      if (word("notin")) {
        return new Requirement(key, Operator.NOT_IN, set());
      }
      if (word("in")) {
        return new Requirement(key, Operator.IN, set());
      }
      if (pos == text.length() || text.charAt(pos) == ',') {
        return new Requirement(key, Operator.EXISTS, Set.of());
      }
      throw error("expected =, ==, !=, in, notin, ',' or the end after key '" + key + "'");
    }

    private String key() {
      skipSpaces();
      int start = pos;
      while (pos < text.length() && "=!(), ".indexOf(text.charAt(pos)) < 0) {
        pos++;
      }
      String key = text.substring(start, pos);
      if (key.isEmpty()) {
        throw error("expected a label key");
      }
      try {
        checkKey(key);
      } catch (IllegalArgumentException e) {
        throw error(e.getMessage());
      }
      return key;
    }

    private String value() {
      skipSpaces();
      int start = pos;
      while (pos < text.length() && "=!(), ".indexOf(text.charAt(pos)) < 0) {
        pos++;
      }
      String value = text.substring(start, pos);
      if (!value.isEmpty() && !NAME.matcher(value).matches()) {
        throw error("label value '" + value + "' is invalid");
      }
      return value;
    }

    private Set<String> set() {
      skipSpaces();
      if (!accept("(")) {
        throw error("expected '(' to open the value set");
      }
      Set<String> values = new TreeSet<>();
      do {
        values.add(value());
        skipSpaces();
      } while (accept(","));
      if (!accept(")")) {
        throw error("expected ',' or ')' in the value set");
      }
      return values;
    }

    private boolean word(String word) {
      if (text.startsWith(word, pos)
          && (pos + word.length() == text.length()
              || text.charAt(pos + word.length()) == ' '
              || text.charAt(pos + word.length()) == '(')) {
        pos += word.length();
        return true;
      }
      return false;
    }

    private boolean accept(String token) {
      if (text.startsWith(token, pos)) {
        pos += token.length();
        return true;
      }
      return false;
    }

    private void skipSpaces() {
      while (pos < text.length() && text.charAt(pos) == ' ') {
        pos++;
      }
    }

    private IllegalArgumentException error(String message) {
      return new IllegalArgumentException(
          "selector '" + text + "' at position " + (pos + 1) + ": " + message);
    }
  }
}
