package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every place in a rendered object that still names one of the default namespaces: a value that is
 * one (a namespace field, a subject, a namespace selector), a DNS name {@code <svc>.<ns>.svc} or a
 * service account {@code system:serviceaccount:<ns>:<name>} anywhere inside a string. Names of
 * objects and label values that name Fleetwave or its Kafka cluster are names, not namespaces.
 */
final class StaleNamespaces {
  static final Set<String> DEFAULTS =
      Set.of(NamespacesTest.CONTROL_PLANE, NamespacesTest.AGENTS, "monitoring", "cnpg-system");

  /** Keys whose value is an object's name or Fleetwave's name, never a namespace. */
  private static final Set<String> NAME_KEYS =
      Set.of("name", "app.kubernetes.io/part-of", "strimzi.io/cluster");

  private static final Pattern INSIDE =
      Pattern.compile(
          "\\.(fleetwave|fleetwave-agents)\\.svc|serviceaccount:(fleetwave|fleetwave-agents):");

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private StaleNamespaces() {}

  static List<String> in(HasMetadata resource) {
    List<String> stale = new ArrayList<>();
    if (resource.getKind().equals("Namespace")
        && DEFAULTS.contains(resource.getMetadata().getName())) {
      stale.add("the Namespace itself");
    }
    walk(SERIALIZATION.convertValue(resource, Map.class), "", "", stale);
    return stale;
  }

  private static void walk(Object value, String key, String path, List<String> stale) {
    switch (value) {
      case Map<?, ?> map -> map.forEach((k, v) -> walk(v, k.toString(), path + "." + k, stale));
      case List<?> list -> {
        for (int i = 0; i < list.size(); i++) {
          walk(list.get(i), key, path + "[" + i + "]", stale);
        }
      }
      case String text -> {
        if (DEFAULTS.contains(text) && !NAME_KEYS.contains(key)) {
          stale.add(path + " = " + text);
        }
        var inside = INSIDE.matcher(text);
        while (inside.find()) {
          stale.add(path + " contains " + inside.group());
        }
      }
      case null, default -> {}
    }
  }
}
