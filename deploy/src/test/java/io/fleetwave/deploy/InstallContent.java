package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What an install puts in the cluster, object by object (kind, namespace, name) with its content as
 * plain maps, so the chart's render and the Kustomize tree's can be compared field by field.
 *
 * <p>Left out of the comparison, and only these: the labels and annotations Helm adds to every
 * object it renders ({@link #HELM_LABELS}, {@link #HELM_ANNOTATIONS}). Lists of named entries (env,
 * volumes, volumeMounts, ports, containers) compare by name, in any order: the API server merges
 * them by name, and the order Kustomize's patches leave them in is not part of the install.
 */
final class InstallContent {
  /** The chart's own labels (templates/_helpers.tpl, fleetwave.helmLabels). */
  static final Set<String> HELM_LABELS =
      Set.of(
          "helm.sh/chart",
          "app.kubernetes.io/managed-by",
          "app.kubernetes.io/instance",
          "app.kubernetes.io/version");

  /** Helm's instructions to itself: keep a resource at uninstall (deploy/README.md, Lifecycle). */
  static final Set<String> HELM_ANNOTATIONS = Set.of("helm.sh/resource-policy");

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final int MAX_DIFFERENCES = 40;

  private final Map<String, Object> objects;

  private InstallContent(Map<String, Object> objects) {
    this.objects = objects;
  }

  /**
   * The union of several renders. An object rendered by more than one (the shared agent objects in
   * every overlay of the old layout) must be the same in each.
   */
  static InstallContent of(List<Rendered> renders) {
    Map<String, Object> objects = new TreeMap<>();
    for (Rendered rendered : renders) {
      for (HasMetadata resource : rendered.resources()) {
        String key = key(resource);
        Object content = normalise(resource);
        Object before = objects.putIfAbsent(key, content);
        if (before != null && !before.equals(content)) {
          throw new AssertionError(
              key + " is rendered twice with different content, again by " + rendered.dir());
        }
      }
    }
    return new InstallContent(objects);
  }

  Set<String> keys() {
    return objects.keySet();
  }

  /** Every difference between this install and {@code other}, described for a person. */
  List<String> differencesFrom(InstallContent other, String thisName, String otherName) {
    List<String> differences = new ArrayList<>();
    Set<String> keys = new TreeSet<>(objects.keySet());
    keys.addAll(other.objects.keySet());
    for (String key : keys) {
      Object mine = objects.get(key);
      Object theirs = other.objects.get(key);
      if (mine == null) {
        differences.add(key + ": only in " + otherName);
      } else if (theirs == null) {
        differences.add(key + ": only in " + thisName);
      } else {
        compare(key, mine, theirs, thisName, otherName, differences);
      }
    }
    return differences;
  }

  static String key(HasMetadata resource) {
    return resource.getKind()
        + " "
        + Objects.requireNonNullElse(resource.getMetadata().getNamespace(), "(cluster)")
        + "/"
        + resource.getMetadata().getName();
  }

  @SuppressWarnings("unchecked")
  private static Object normalise(HasMetadata resource) {
    Map<String, Object> content = SERIALIZATION.convertValue(resource, Map.class);
    Map<String, Object> metadata = (Map<String, Object>) content.get("metadata");
    strip(metadata, "labels", HELM_LABELS);
    strip(metadata, "annotations", HELM_ANNOTATIONS);
    return sortNamedLists(content);
  }

  @SuppressWarnings("unchecked")
  private static void strip(Map<String, Object> metadata, String field, Set<String> keys) {
    if (metadata.get(field) instanceof Map<?, ?> map) {
      Map<String, Object> kept = new TreeMap<>((Map<String, Object>) map);
      kept.keySet().removeAll(keys);
      if (kept.isEmpty()) {
        metadata.remove(field);
      } else {
        metadata.put(field, kept);
      }
    }
  }

  private static Object sortNamedLists(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> sorted = new TreeMap<>();
      map.forEach((k, v) -> sorted.put(String.valueOf(k), sortNamedLists(v)));
      return sorted;
    }
    if (value instanceof List<?> list) {
      List<Object> items =
          new ArrayList<>(list.stream().map(InstallContent::sortNamedLists).toList());
      if (!items.isEmpty() && items.stream().allMatch(InstallContent::isNamed)) {
        items.sort(Comparator.comparing(i -> String.valueOf(((Map<?, ?>) i).get("name"))));
      }
      return items;
    }
    return value;
  }

  private static boolean isNamed(Object item) {
    return item instanceof Map<?, ?> map && map.get("name") instanceof String;
  }

  private static void compare(
      String path,
      Object mine,
      Object theirs,
      String thisName,
      String otherName,
      List<String> differences) {
    if (differences.size() >= MAX_DIFFERENCES || Objects.equals(mine, theirs)) {
      return;
    }
    if (mine instanceof Map<?, ?> a && theirs instanceof Map<?, ?> b) {
      Set<String> fields = new TreeSet<>();
      a.keySet().forEach(k -> fields.add(String.valueOf(k)));
      b.keySet().forEach(k -> fields.add(String.valueOf(k)));
      for (String field : fields) {
        compare(path + "." + field, a.get(field), b.get(field), thisName, otherName, differences);
      }
    } else if (mine instanceof List<?> a && theirs instanceof List<?> b && a.size() == b.size()) {
      for (int i = 0; i < a.size(); i++) {
        compare(path + "[" + i + "]", a.get(i), b.get(i), thisName, otherName, differences);
      }
    } else {
      Map<String, Object> both = new LinkedHashMap<>();
      both.put(thisName, mine);
      both.put(otherName, theirs);
      differences.add(path + ": " + both);
    }
  }
}
