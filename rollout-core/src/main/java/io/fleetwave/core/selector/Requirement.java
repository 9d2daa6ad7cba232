package io.fleetwave.core.selector;

import java.util.List;
import java.util.Map;

/** One requirement of a Kubernetes label selector, with its meaning over a node's labels. */
public sealed interface Requirement {
  String key();

  boolean matches(Map<String, String> labels);

  /** {@code key=value} or {@code key==value}. */
  record Equals(String key, String value) implements Requirement {
    @Override
    public boolean matches(Map<String, String> labels) {
      return value.equals(labels.get(key));
    }
  }

  /** {@code key!=value}: also true when the key is absent, as in Kubernetes. */
  record NotEquals(String key, String value) implements Requirement {
    @Override
    public boolean matches(Map<String, String> labels) {
      return !value.equals(labels.get(key));
    }
  }

  /** {@code key in (a,b)}. */
  record In(String key, List<String> values) implements Requirement {
    public In {
      values = List.copyOf(values);
    }

    @Override
    public boolean matches(Map<String, String> labels) {
      return labels.containsKey(key) && values.contains(labels.get(key));
    }
  }

  /** {@code key notin (a,b)}: also true when the key is absent. */
  record NotIn(String key, List<String> values) implements Requirement {
    public NotIn {
      values = List.copyOf(values);
    }

    @Override
    public boolean matches(Map<String, String> labels) {
      return !labels.containsKey(key) || !values.contains(labels.get(key));
    }
  }

  /** {@code key}. */
  record Exists(String key) implements Requirement {
    @Override
    public boolean matches(Map<String, String> labels) {
      return labels.containsKey(key);
    }
  }

  /** {@code !key}. */
  record NotExists(String key) implements Requirement {
    @Override
    public boolean matches(Map<String, String> labels) {
      return !labels.containsKey(key);
    }
  }
}
