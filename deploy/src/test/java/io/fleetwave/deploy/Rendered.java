package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The resources one kustomization renders to, as fabric8 objects: typed where fabric8 has a model
 * (Deployment, DaemonSet, Role...), {@link GenericKubernetesResource} for the CRDs of Strimzi,
 * CloudNativePG and the Prometheus Operator.
 */
record Rendered(Path dir, List<HasMetadata> resources) {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");

  static Rendered parse(Path dir, String yaml) {
    List<HasMetadata> resources = new ArrayList<>();
    for (String document : DOCUMENT_SEPARATOR.split(yaml, -1)) {
      if (document.isBlank()) {
        continue;
      }
      KubernetesResource resource = SERIALIZATION.unmarshal(document, KubernetesResource.class);
      if (!(resource instanceof HasMetadata object)) {
        throw new AssertionError(dir + " renders a document without metadata:\n" + document);
      }
      resources.add(object);
    }
    return new Rendered(dir, List.copyOf(resources));
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return resources.stream().filter(type::isInstance).map(type::cast).toList();
  }

  <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return all(type).stream().filter(r -> r.getMetadata().getName().equals(name)).findFirst();
  }

  <T extends HasMetadata> T one(Class<T> type, String name) {
    return find(type, name)
        .orElseThrow(
            () ->
                new AssertionError(
                    dir
                        + " renders no "
                        + type.getSimpleName()
                        + " named "
                        + name
                        + "; it has "
                        + names()));
  }

  /** The first (the main) container of the named Deployment's or DaemonSet's pods. */
  Container mainContainer(Class<? extends HasMetadata> workload, String name) {
    PodTemplateSpec template =
        switch (one(workload, name)) {
          case Deployment deployment -> deployment.getSpec().getTemplate();
          case DaemonSet daemonSet -> daemonSet.getSpec().getTemplate();
          case HasMetadata other ->
              throw new IllegalArgumentException(other.getKind() + " runs no pods of its own");
        };
    return template.getSpec().getContainers().getFirst();
  }

  /**
   * The resources of a custom kind (Strimzi, CloudNativePG, Prometheus Operator) as plain maps: the
   * Prometheus Operator's kinds parse into fabric8's typed model (it is on the test class path,
   * CustomResourceModelsTest), the tests here read them as maps all the same.
   */
  List<GenericKubernetesResource> custom(String kind) {
    return resources.stream()
        .filter(r -> r.getKind().equals(kind))
        .map(
            r ->
                r instanceof GenericKubernetesResource generic
                    ? generic
                    : SERIALIZATION.convertValue(r, GenericKubernetesResource.class))
        .toList();
  }

  GenericKubernetesResource custom(String kind, String name) {
    return custom(kind).stream()
        .filter(r -> r.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    dir + " renders no " + kind + " named " + name + "; it has " + names()));
  }

  /** A custom resource's spec (or another top-level field) as plain maps and lists. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> field(GenericKubernetesResource resource, String name) {
    Object value = resource.getAdditionalProperties().get(name);
    if (!(value instanceof Map<?, ?> map)) {
      throw new AssertionError(
          resource.getKind() + " " + resource.getMetadata().getName() + " has no " + name);
    }
    return (Map<String, Object>) map;
  }

  List<String> names() {
    return resources.stream().map(r -> r.getKind() + "/" + r.getMetadata().getName()).toList();
  }
}
