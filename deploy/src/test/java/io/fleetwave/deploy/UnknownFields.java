package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Fields a published model did not recognise in a resource: fabric8's (built-in types and the
 * Prometheus Operator's) and Strimzi's keep them in {@code additionalProperties}, where a misspelt
 * {@code readOnly} would sit unnoticed (Kustomize passes it through, and an API server without
 * strict field validation drops it).
 */
final class UnknownFields {
  /**
   * The packages of the models whose objects are walked: Kubernetes, Prometheus Operator, Strimzi.
   */
  private static final List<String> MODEL_PACKAGES =
      List.of(
          "io.fabric8.kubernetes.api.model",
          "io.fabric8.openshift.api.model.monitoring",
          "io.strimzi.api");

  private UnknownFields() {}

  static List<String> of(Object resource) {
    List<String> unknown = new ArrayList<>();
    walk(resource, "", unknown);
    return unknown;
  }

  private static void walk(Object value, String path, List<String> unknown) {
    if (value == null || value instanceof GenericKubernetesResource) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        walk(item, path + "[" + i++ + "]", unknown);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(v, path + "[" + k + "]", unknown));
      return;
    }
    String modelPackage = value.getClass().getPackageName();
    if (MODEL_PACKAGES.stream().noneMatch(modelPackage::startsWith)) {
      return;
    }
    for (Method getter : value.getClass().getMethods()) {
      // A bridge method (a generic getter's erased twin, as CustomResource.getSpec has) is the same
      // field again.
      if (getter.getParameterCount() != 0
          || getter.isBridge()
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getName().equals("getClass")) {
        continue;
      }
      Object child;
      try {
        child = getter.invoke(value);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue;
      }
      String field = decapitalize(getter.getName().substring(3));
      if (field.equals("additionalProperties")) {
        if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add((path.isEmpty() ? "" : path + ".") + extra.keySet());
        }
      } else {
        walk(child, path.isEmpty() ? field : path + "." + field, unknown);
      }
    }
  }

  private static String decapitalize(String name) {
    return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }
}
