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
 * Fields fabric8 did not recognise in a built-in resource: it keeps them in {@code
 * additionalProperties}, where a misspelt {@code readOnly} would sit unnoticed (Kustomize passes it
 * through, and an API server without strict field validation drops it).
 */
final class UnknownFields {
  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

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
    if (!value.getClass().getPackageName().startsWith(MODEL_PACKAGE)) {
      return;
    }
    for (Method getter : value.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
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
