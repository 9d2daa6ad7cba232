package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Strimzi and Prometheus Operator resource that any kustomization renders loads into the
 * operator's own published model of the newest version deploy/ supports (README "Support matrix"):
 * Strimzi's io.strimzi:api (1.2, which serves kafka.strimzi.io/v1 only) and fabric8's model of
 * monitoring.coreos.com/v1. An apiVersion the model does not serve, a kind it does not know, a
 * field it does not have or a value it does not accept (an ACL operation, say) fails. CloudNativePG
 * publishes no Java model; its Cluster is not checked here (README says so).
 */
class CustomResourceModelsTest {
  /** The kinds deploy/ may use of each operator, as their published model classes. */
  private static final List<Class<? extends HasMetadata>> MODELS =
      List.of(
          KafkaTopic.class,
          KafkaUser.class,
          ServiceMonitor.class,
          PodMonitor.class,
          PrometheusRule.class);

  /** The API groups of the operators whose models are checked. */
  private static final List<String> GROUPS =
      MODELS.stream().map(HasMetadata::getGroup).distinct().toList();

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /**
   * Writes every field a model object holds, defaults and nulls included: the models leave out a
   * value equal to its default (Strimzi's patternType literal), which is not a value refused.
   */
  private static final ObjectMapper EVERY_FIELD =
      new ObjectMapper()
          .setAnnotationIntrospector(
              new JacksonAnnotationIntrospector() {
                @Override
                public JsonInclude.Value findPropertyInclusion(Annotated annotated) {
                  return JsonInclude.Value.empty();
                }
              });

  static Stream<Path> kustomizations() {
    return Kustomize.kustomizations().stream();
  }

  @ParameterizedTest
  @MethodSource("kustomizations")
  void everyOperatorResourceLoadsIntoItsOperatorsModel(Path dir) {
    List<String> problems = new ArrayList<>();
    for (HasMetadata resource : Kustomize.render(dir).resources()) {
      if (GROUPS.contains(group(resource.getApiVersion()))) {
        problems.addAll(problems(resource));
      }
    }
    assertThat(problems).as(dir.toString()).isEmpty();
  }

  /** The install carries some of each model's kinds: the check above is not vacuous. */
  @Test
  void theInstallRendersEveryKindTheModelsAreCheckedFor() {
    List<String> kinds =
        Kustomize.render("install").resources().stream().map(HasMetadata::getKind).toList();
    assertThat(kinds).containsAll(MODELS.stream().map(HasMetadata::getKind).toList());
  }

  @Test
  void anApiVersionTheModelDoesNotServeIsRefused() {
    Map<String, Object> topic = topic();
    topic.put("apiVersion", "kafka.strimzi.io/v1beta2");
    assertThat(problems(parse(topic)))
        .singleElement()
        .asString()
        .contains("kafka.strimzi.io/v1beta2")
        .contains("serves kafka.strimzi.io/v1");
  }

  @Test
  void aFieldTheModelDoesNotHaveIsRefused() {
    Map<String, Object> topic = topic();
    spec(topic).put("replicationFactor", 3);
    assertThat(problems(parse(topic))).singleElement().asString().contains("[replicationFactor]");
  }

  @Test
  void aValueTheModelDoesNotAcceptIsRefused() {
    HasMetadata user =
        parse(
            Map.of(
                "apiVersion",
                "kafka.strimzi.io/v1",
                "kind",
                "KafkaUser",
                "metadata",
                Map.of("name", "u"),
                "spec",
                Map.of(
                    "authorization",
                    Map.of(
                        "type",
                        "simple",
                        "acls",
                        List.of(
                            Map.of(
                                "resource",
                                Map.of("type", "topic", "name", "t"),
                                "operations",
                                List.of("Wirte")))))));
    assertThat(problems(user)).singleElement().asString().contains("Wirte");
  }

  @Test
  void aKindNoModelIsCheckedForIsRefused() {
    Map<String, Object> connect = topic();
    connect.put("kind", "KafkaConnect");
    assertThat(problems(parse(connect))).singleElement().asString().contains("no model");
  }

  /** What keeps one resource from loading into its operator's model; empty when it loads. */
  private static List<String> problems(HasMetadata resource) {
    String name = resource.getKind() + " " + resource.getMetadata().getName();
    Optional<Class<? extends HasMetadata>> model =
        MODELS.stream().filter(m -> HasMetadata.getKind(m).equals(resource.getKind())).findFirst();
    if (model.isEmpty()) {
      return List.of(name + ": no model is checked for this kind; add its class to MODELS");
    }
    String served = HasMetadata.getApiVersion(model.get());
    if (!served.equals(resource.getApiVersion())) {
      return List.of(
          name
              + " is "
              + resource.getApiVersion()
              + ", but "
              + model.get().getName()
              + " serves "
              + served);
    }
    Object typed;
    try {
      typed = SERIALIZATION.unmarshal(SERIALIZATION.asJson(resource), model.get());
    } catch (RuntimeException e) {
      return List.of(name + " does not load into " + model.get().getName() + ": " + e.getMessage());
    }
    List<String> problems = new ArrayList<>();
    UnknownFields.of(typed).stream()
        .map(field -> name + " has fields " + model.get().getSimpleName() + " lacks: " + field)
        .forEach(problems::add);
    // A value the model does not accept can load as nothing (Strimzi reads an unknown ACL
    // operation as null): what the model writes back must still hold every value given.
    notKept(
        SERIALIZATION.convertValue(resource, Object.class),
        EVERY_FIELD.convertValue(typed, Object.class),
        name + " ",
        problems);
    return problems;
  }

  private static void notKept(Object given, Object kept, String path, List<String> problems) {
    if (given instanceof Map<?, ?> fields) {
      Map<?, ?> keptFields = kept instanceof Map<?, ?> m ? m : Map.of();
      fields.forEach(
          (field, value) -> notKept(value, keptFields.get(field), path + "." + field, problems));
    } else if (given instanceof List<?> items) {
      List<?> keptItems = kept instanceof List<?> l ? l : List.of();
      for (int i = 0; i < items.size(); i++) {
        notKept(
            items.get(i),
            i < keptItems.size() ? keptItems.get(i) : null,
            path + "[" + i + "]",
            problems);
      }
    } else if (given != null && !String.valueOf(given).equals(String.valueOf(kept))) {
      problems.add(path + ": the model does not accept " + given + " (it reads " + kept + ")");
    }
  }

  private static String group(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  private static HasMetadata parse(Map<String, Object> resource) {
    return Rendered.parse(Path.of("test"), SERIALIZATION.asYaml(resource)).resources().getFirst();
  }

  /** A KafkaTopic as deploy/kafka has them, to break one way at a time. */
  private static Map<String, Object> topic() {
    return new java.util.LinkedHashMap<>(
        Map.of(
            "apiVersion",
            "kafka.strimzi.io/v1",
            "kind",
            "KafkaTopic",
            "metadata",
            Map.of("name", "t", "labels", Map.of("strimzi.io/cluster", "fleetwave")),
            "spec",
            new java.util.LinkedHashMap<>(Map.of("partitions", 1, "replicas", 3))));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(Map<String, Object> resource) {
    return (Map<String, Object>) resource.get("spec");
  }
}
