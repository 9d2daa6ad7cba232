package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** RBAC rules flattened to one (API group, resource, verb) per entry, for exact comparison. */
final class Rules {
  private Rules() {}

  record Rule(String apiGroup, String resource, String verb) implements Comparable<Rule> {
    @Override
    public int compareTo(Rule other) {
      return toString().compareTo(other.toString());
    }
  }

  static Set<Rule> of(List<PolicyRule> rules) {
    Set<Rule> flat = new TreeSet<>();
    for (PolicyRule rule : rules) {
      if (rule.getResourceNames() != null && !rule.getResourceNames().isEmpty()) {
        throw new AssertionError("resourceNames are not expected here: " + rule);
      }
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            flat.add(new Rule(group, resource, verb));
          }
        }
      }
    }
    return flat;
  }
}
