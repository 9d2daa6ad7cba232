package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reading NetworkPolicies as the API server's selector semantics do. */
final class NetworkPolicies {
  /** The label the API server puts on every namespace, with the namespace's name. */
  static final String NAMESPACE_NAME = "kubernetes.io/metadata.name";

  private NetworkPolicies() {}

  /** Whether a label selector selects an object with these labels (an empty one selects all). */
  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    if (selector.getMatchLabels() != null
        && !selector.getMatchLabels().entrySet().stream()
            .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
      return false;
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String value = labels.get(r.getKey());
        boolean match =
            switch (r.getOperator()) {
              case "In" -> value != null && r.getValues().contains(value);
              case "NotIn" -> value == null || !r.getValues().contains(value);
              case "Exists" -> value != null;
              case "DoesNotExist" -> value == null;
              default -> throw new AssertionError("unknown operator in " + r);
            };
        if (!match) {
          return false;
        }
      }
    }
    return true;
  }

  /** Every namespace a policy's peers select by name. */
  static List<String> namespaceNames(NetworkPolicy policy) {
    List<NetworkPolicyPeer> peers = new ArrayList<>();
    if (policy.getSpec().getIngress() != null) {
      policy.getSpec().getIngress().forEach(r -> peers.addAll(nullToEmpty(r.getFrom())));
    }
    if (policy.getSpec().getEgress() != null) {
      policy.getSpec().getEgress().forEach(r -> peers.addAll(nullToEmpty(r.getTo())));
    }
    return peers.stream()
        .filter(p -> p.getNamespaceSelector() != null)
        .map(p -> p.getNamespaceSelector().getMatchLabels().get(NAMESPACE_NAME))
        .toList();
  }

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
