package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Secrets and ConfigMaps a rendered kustomization refers to, and where each comes from: the
 * render itself, an operator that writes it for a resource in the render (Strimzi's User Operator
 * for a KafkaUser, CloudNativePG for a Cluster), or the table in deploy/README.md of those the
 * operator creates.
 */
final class References {
  private References() {}

  /** One reference; {@code key} is empty when a whole Secret or ConfigMap is mounted. */
  record Reference(String from, String kind, String name, Optional<String> key) {
    @Override
    public String toString() {
      return from + " -> " + kind + " " + name + key.map(k -> " key " + k).orElse("");
    }
  }

  /** Where a Secret or ConfigMap comes from, and the keys it has. */
  record Source(String kind, String name, Set<String> keys, String origin) {}

  // Keys the operators write (Strimzi: SCRAM-SHA-512 user; CloudNativePG: the app user).
  static final Set<String> KAFKA_USER_KEYS = Set.of("password", "sasl.jaas.config");
  static final Set<String> CNPG_APP_KEYS =
      Set.of("username", "password", "host", "port", "dbname", "uri", "jdbc-uri", "pgpass");

  static List<Reference> of(Rendered rendered) {
    List<Reference> references = new ArrayList<>();
    for (Deployment d : rendered.all(Deployment.class)) {
      pod(
          "Deployment/" + d.getMetadata().getName(),
          d.getSpec().getTemplate().getSpec(),
          references);
    }
    for (DaemonSet d : rendered.all(DaemonSet.class)) {
      pod(
          "DaemonSet/" + d.getMetadata().getName(),
          d.getSpec().getTemplate().getSpec(),
          references);
    }
    // A KafkaUser whose SCRAM password comes from a Secret (Strimzi waits for it).
    for (GenericKubernetesResource user : rendered.custom("KafkaUser")) {
      if (Rendered.field(user, "spec").get("authentication") instanceof Map<?, ?> authentication
          && authentication.get("password") instanceof Map<?, ?> password
          && password.get("valueFrom") instanceof Map<?, ?> valueFrom
          && valueFrom.get("secretKeyRef") instanceof Map<?, ?> ref) {
        references.add(
            new Reference(
                "KafkaUser/" + user.getMetadata().getName(),
                "Secret",
                (String) ref.get("name"),
                Optional.of((String) ref.get("key"))));
      }
    }
    for (GenericKubernetesResource cluster : rendered.custom("Cluster")) {
      Object monitoring = Rendered.field(cluster, "spec").get("monitoring");
      if (monitoring instanceof Map<?, ?> m) {
        String from = "Cluster/" + cluster.getMetadata().getName();
        selectors(from, "ConfigMap", m.get("customQueriesConfigMap"), references);
        selectors(from, "Secret", m.get("customQueriesSecret"), references);
      }
    }
    return references;
  }

  static Map<String, Source> sources(Rendered rendered, Path readme) throws IOException {
    Map<String, Source> sources = new HashMap<>();
    for (ConfigMap c : rendered.all(ConfigMap.class)) {
      Set<String> keys = new TreeSet<>();
      if (c.getData() != null) keys.addAll(c.getData().keySet());
      if (c.getBinaryData() != null) keys.addAll(c.getBinaryData().keySet());
      add(sources, new Source("ConfigMap", c.getMetadata().getName(), keys, "rendered"));
    }
    for (Secret s : rendered.all(Secret.class)) {
      Set<String> keys = new TreeSet<>();
      if (s.getData() != null) keys.addAll(s.getData().keySet());
      if (s.getStringData() != null) keys.addAll(s.getStringData().keySet());
      add(sources, new Source("Secret", s.getMetadata().getName(), keys, "rendered"));
    }
    for (GenericKubernetesResource user : rendered.custom("KafkaUser")) {
      add(
          sources,
          new Source("Secret", user.getMetadata().getName(), KAFKA_USER_KEYS, "Strimzi KafkaUser"));
    }
    for (GenericKubernetesResource cluster : rendered.custom("Cluster")) {
      add(
          sources,
          new Source(
              "Secret", cluster.getMetadata().getName() + "-app", CNPG_APP_KEYS, "CloudNativePG"));
    }
    for (Source documented : documented(readme)) {
      sources.putIfAbsent(documented.kind() + "/" + documented.name(), documented);
    }
    return sources;
  }

  /**
   * The rows of the README's table of Secrets and ConfigMaps: {@code | `name` | Secret | `key`,
   * `key` | ... |}.
   */
  static List<Source> documented(Path readme) throws IOException {
    Pattern row =
        Pattern.compile("^\\|\\s*`([^`]+)`\\s*\\|\\s*(Secret|ConfigMap)\\s*\\|([^|]*)\\|");
    Pattern key = Pattern.compile("`([^`]+)`");
    List<Source> documented = new ArrayList<>();
    for (String line : Files.readAllLines(readme)) {
      Matcher m = row.matcher(line);
      if (m.find()) {
        Set<String> keys = new TreeSet<>();
        Matcher k = key.matcher(m.group(3));
        while (k.find()) {
          keys.add(k.group(1));
        }
        documented.add(new Source(m.group(2), m.group(1), keys, "documented in " + readme));
      }
    }
    return documented;
  }

  private static void add(Map<String, Source> sources, Source source) {
    sources.put(source.kind() + "/" + source.name(), source);
  }

  private static void pod(String from, PodSpec pod, List<Reference> references) {
    for (Volume v : pod.getVolumes()) {
      if (v.getSecret() != null) {
        items(from, "Secret", v.getSecret().getSecretName(), v.getSecret().getItems(), references);
      }
      if (v.getConfigMap() != null) {
        items(
            from, "ConfigMap", v.getConfigMap().getName(), v.getConfigMap().getItems(), references);
      }
      if (v.getProjected() != null) {
        v.getProjected()
            .getSources()
            .forEach(
                s -> {
                  if (s.getSecret() != null) {
                    items(
                        from,
                        "Secret",
                        s.getSecret().getName(),
                        s.getSecret().getItems(),
                        references);
                  }
                  if (s.getConfigMap() != null) {
                    items(
                        from,
                        "ConfigMap",
                        s.getConfigMap().getName(),
                        s.getConfigMap().getItems(),
                        references);
                  }
                });
      }
    }
    List<Container> containers = new ArrayList<>(pod.getContainers());
    if (pod.getInitContainers() != null) {
      containers.addAll(pod.getInitContainers());
    }
    for (Container c : containers) {
      filesNamedInEnvironment(from, pod, c, references);
      for (EnvVar e : c.getEnv()) {
        if (e.getValueFrom() == null) {
          continue;
        }
        if (e.getValueFrom().getSecretKeyRef() != null) {
          var ref = e.getValueFrom().getSecretKeyRef();
          references.add(new Reference(from, "Secret", ref.getName(), Optional.of(ref.getKey())));
        }
        if (e.getValueFrom().getConfigMapKeyRef() != null) {
          var ref = e.getValueFrom().getConfigMapKeyRef();
          references.add(
              new Reference(from, "ConfigMap", ref.getName(), Optional.of(ref.getKey())));
        }
      }
      for (EnvFromSource e : c.getEnvFrom()) {
        if (e.getSecretRef() != null) {
          references.add(
              new Reference(from, "Secret", e.getSecretRef().getName(), Optional.empty()));
        }
        if (e.getConfigMapRef() != null) {
          references.add(
              new Reference(from, "ConfigMap", e.getConfigMapRef().getName(), Optional.empty()));
        }
      }
    }
  }

  /**
   * A whole Secret or ConfigMap mounted as a directory, and an environment variable naming a file
   * in it ({@code FLEETWAVE_KAFKA_CONFIG=/etc/fleetwave/kafka/client.properties}): the file name is
   * a key that must exist.
   */
  private static void filesNamedInEnvironment(
      String from, PodSpec pod, Container container, List<Reference> references) {
    for (VolumeMount mount : container.getVolumeMounts()) {
      Volume volume =
          pod.getVolumes().stream()
              .filter(v -> v.getName().equals(mount.getName()))
              .findFirst()
              .orElse(null);
      if (volume == null || mount.getSubPath() != null) {
        continue;
      }
      String kind;
      String name;
      if (volume.getSecret() != null && isEmpty(volume.getSecret().getItems())) {
        kind = "Secret";
        name = volume.getSecret().getSecretName();
      } else if (volume.getConfigMap() != null && isEmpty(volume.getConfigMap().getItems())) {
        kind = "ConfigMap";
        name = volume.getConfigMap().getName();
      } else {
        continue;
      }
      String prefix =
          mount.getMountPath().endsWith("/") ? mount.getMountPath() : mount.getMountPath() + "/";
      for (EnvVar e : container.getEnv()) {
        if (e.getValue() != null && e.getValue().startsWith(prefix)) {
          references.add(
              new Reference(
                  from + " " + e.getName(),
                  kind,
                  name,
                  Optional.of(e.getValue().substring(prefix.length()))));
        }
      }
    }
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static void items(
      String from, String kind, String name, List<KeyToPath> items, List<Reference> references) {
    if (items == null || items.isEmpty()) {
      references.add(new Reference(from, kind, name, Optional.empty()));
    } else {
      items.forEach(i -> references.add(new Reference(from, kind, name, Optional.of(i.getKey()))));
    }
  }

  private static void selectors(String from, String kind, Object list, List<Reference> references) {
    if (list instanceof List<?> selectors) {
      for (Object selector : selectors) {
        Map<?, ?> s = (Map<?, ?>) selector;
        references.add(
            new Reference(
                from, kind, (String) s.get("name"), Optional.ofNullable((String) s.get("key"))));
      }
    }
  }
}
