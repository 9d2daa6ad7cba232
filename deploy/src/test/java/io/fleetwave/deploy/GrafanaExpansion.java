package io.fleetwave.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Grafana makes of a value in a provisioning file (pkg/services/provisioning/values): {@code
 * $$} is a literal {@code $}; {@code $__env{NAME}} and {@code $__file{path}} are its expanders;
 * then Go's os.ExpandEnv, which reads {@code $NAME} and {@code ${NAME}} and nothing else. Any other
 * {@code ${...}} (a shell default such as {@code ${NAME:-x}}) is no variable to Go: it comes out
 * empty, so it is refused here, with where it is.
 */
final class GrafanaExpansion {
  private static final Pattern DOLLAR =
      Pattern.compile(
          "\\$\\$|\\$__(env|file)\\{([^}]*)}|\\$\\{([A-Za-z0-9_]+)}|\\$([A-Za-z0-9_]+)|\\$\\{[^}]*}?");

  private GrafanaExpansion() {}

  /** One line with Grafana's rules; throws naming the file, line and text of a form it lacks. */
  static String expand(String file, int line, String text, Map<String, String> environment) {
    if (text.strip().startsWith("#")) {
      return text; // a YAML comment: no value, Grafana never expands it
    }
    StringBuilder out = new StringBuilder();
    Matcher dollar = DOLLAR.matcher(text);
    int from = 0;
    while (dollar.find()) {
      out.append(text, from, dollar.start());
      from = dollar.end();
      String match = dollar.group();
      if (match.equals("$$")) {
        out.append('$');
      } else if ("env".equals(dollar.group(1))) {
        out.append(environment.getOrDefault(dollar.group(2), ""));
      } else if ("file".equals(dollar.group(1))) {
        out.append(match); // a file on Grafana's host: kept as written
      } else if (dollar.group(3) != null || dollar.group(4) != null) {
        String name = dollar.group(3) != null ? dollar.group(3) : dollar.group(4);
        out.append(environment.getOrDefault(name, ""));
      } else {
        throw new IllegalArgumentException(
            file
                + ":"
                + line
                + ": "
                + match
                + " is not a form Grafana's provisioning expands (only $VAR, ${VAR} and $$); it"
                + " comes out empty: "
                + text.strip());
      }
    }
    return out.append(text.substring(from)).toString();
  }

  /** The lines of a file with a form Grafana does not expand, as file:line: text. */
  static List<String> problems(String file, String content) {
    List<String> problems = new ArrayList<>();
    List<String> lines = content.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      try {
        expand(file, i + 1, lines.get(i), Map.of());
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    return problems;
  }

  /** The environment variables a file reads ($VAR, ${VAR}, $__env{VAR}), outside comments. */
  static Set<String> variables(String content) {
    Set<String> names = new TreeSet<>();
    for (String line : content.lines().toList()) {
      if (line.strip().startsWith("#")) {
        continue;
      }
      Matcher dollar = DOLLAR.matcher(line);
      while (dollar.find()) {
        if ("env".equals(dollar.group(1))) {
          names.add(dollar.group(2));
        } else if (dollar.group(3) != null || dollar.group(4) != null) {
          names.add(dollar.group(3) != null ? dollar.group(3) : dollar.group(4));
        }
      }
    }
    return names;
  }
}
