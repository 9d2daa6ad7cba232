package io.fleetwave.core.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed Kubernetes label selector (the string form used by {@code kubectl -l}): requirements
 * joined by commas, all of which must hold. The parser is strict: anything outside the grammar is
 * an error naming the position, never silently ignored.
 *
 * <pre>
 * selector    := [requirement (',' requirement)*]
 * requirement := '!' key | key | key ('=' | '==' | '!=') value
 *              | key ('in' | 'notin') '(' value (',' value)* ')'
 * </pre>
 */
public record LabelSelector(List<Requirement> requirements) {
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public LabelSelector {
    requirements = List.copyOf(requirements);
  }

  public boolean matches(Map<String, String> labels) {
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  public static LabelSelector parse(String text) {
    if (text == null || text.isBlank()) {
      return new LabelSelector(List.of());
    }
    return new Parser(text).selector();
  }

  /**
   * Checks a label key on its own (e.g. a zone label named in a rollout strategy): optional
   * DNS-subdomain prefix and a name of at most 63 characters.
   */
  public static void checkKey(String key) {
    String problem = keyProblem(key == null ? "" : key);
    if (problem != null) {
      throw new LabelSelectorException(problem);
    }
  }

  /** Why a label key is invalid, or null when it is valid. */
  private static String keyProblem(String key) {
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      if (prefix.isEmpty() || prefix.length() > 253 || !PREFIX.matcher(prefix).matches()) {
        return "key prefix '" + prefix + "' is not a DNS subdomain";
      }
    }
    if (!NAME.matcher(name).matches()) {
      return "label key '"
          + key
          + "' is invalid (at most 63 characters: alphanumerics, '-', '_', '.';"
          + " starting and ending with an alphanumeric)";
    }
    return null;
  }

  private static final class Parser {
    private final String text;
    private final List<Token> tokens;
    private int next;

    Parser(String text) {
      this.text = text;
      this.tokens = Lexer.tokens(text);
    }

    LabelSelector selector() {
      List<Requirement> requirements = new ArrayList<>();
      while (true) {
        requirements.add(requirement());
        Token token = take();
        if (token.kind() == Token.Kind.END) {
          return new LabelSelector(requirements);
        }
        if (token.kind() != Token.Kind.COMMA) {
          throw error(token, "expected ',' or the end of the selector");
        }
      }
    }

    private Requirement requirement() {
      Token first = take();
      if (first.kind() == Token.Kind.NOT) {
        String key = key(take());
        return new Requirement.NotExists(key);
      }
      String key = key(first);
      Token operator = peek();
      return switch (operator.kind()) {
        case COMMA, END -> new Requirement.Exists(key);
        case EQ, DOUBLE_EQ -> {
          take();
          yield new Requirement.Equals(key, optionalValue());
        }
        case NOT_EQ -> {
          take();
          yield new Requirement.NotEquals(key, optionalValue());
        }
        case WORD -> {
          take();
          if (operator.text().equals("in")) {
            yield new Requirement.In(key, valueSet());
          }
          if (operator.text().equals("notin")) {
            yield new Requirement.NotIn(key, valueSet());
          }
          throw error(operator, "expected an operator (=, ==, !=, in, notin)");
        }
        default -> throw error(operator, "expected an operator (=, ==, !=, in, notin), ',' or end");
      };
    }

    private String key(Token token) {
      if (token.kind() != Token.Kind.WORD) {
        throw error(token, "expected a label key");
      }
      String key = token.text();
      String problem = keyProblem(key);
      if (problem != null) {
        throw error(token, problem);
      }
      return key;
    }

    private String optionalValue() {
      Token token = peek();
      if (token.kind() == Token.Kind.COMMA || token.kind() == Token.Kind.END) {
        return "";
      }
      return value(take());
    }

    private String value(Token token) {
      if (token.kind() != Token.Kind.WORD) {
        throw error(token, "expected a label value");
      }
      if (!NAME.matcher(token.text()).matches()) {
        throw error(
            token,
            "label value '"
                + token.text()
                + "' is invalid (at most 63 characters: alphanumerics, '-', '_', '.';"
                + " starting and ending with an alphanumeric)");
      }
      return token.text();
    }

    private List<String> valueSet() {
      Token open = take();
      if (open.kind() != Token.Kind.LPAREN) {
        throw error(open, "expected '(' to open the value set");
      }
      List<String> values = new ArrayList<>();
      while (true) {
        values.add(value(take()));
        Token token = take();
        if (token.kind() == Token.Kind.RPAREN) {
          return values;
        }
        if (token.kind() != Token.Kind.COMMA) {
          throw error(token, "expected ',' or ')' in the value set");
        }
      }
    }

    private Token peek() {
      return tokens.get(next);
    }

    private Token take() {
      Token token = tokens.get(next);
      if (token.kind() != Token.Kind.END) {
        next++;
      }
      return token;
    }

    private LabelSelectorException error(Token token, String what) {
      String found = token.kind() == Token.Kind.END ? "end of input" : "'" + token.text() + "'";
      return new LabelSelectorException(
          "invalid label selector '"
              + text
              + "': "
              + what
              + " at position "
              + token.position()
              + ", found "
              + found);
    }
  }
}
