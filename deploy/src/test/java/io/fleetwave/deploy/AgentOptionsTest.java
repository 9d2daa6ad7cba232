package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Service;
import io.fleetwave.agent.AgentOptionsReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each overlay's agent container, handed to the agent's own option parser: the arguments and
 * environment the DaemonSet sets are options the agent knows, the node name comes from the downward
 * API, and every file the options name is mounted. A renamed option or variable breaks this test,
 * not a rollout on a real cluster.
 */
class AgentOptionsTest {
  private static final String NODE = "gpu-node-7";

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void theAgentUnderstandsWhatItsDaemonSetPassesAndFindsEveryFileItNames(HostKind kind) {
    AgentOverlay overlay = AgentOverlay.of(kind);
    Container agent = overlay.agent();

    Map<String, String> read = AgentOptionsReader.read(arguments(agent), environment(overlay));

    assertThat(read)
        .as(kind.dir())
        .containsEntry("node-name", NODE)
        .containsEntry("host-root", "/host")
        .containsKeys("bootstrap", "kafka-config", "public-key")
        // Node identity: the agent enrolls with the control plane's Service, in-cluster with its
        // pod's service-account token; the Service is in the control plane's namespace.
        .containsEntry(
            "control-plane",
            "http://fleetwave-control-plane."
                + Kustomize.render("install")
                    .one(Service.class, ControlPlaneTest.NAME)
                    .getMetadata()
                    .getNamespace()
                + ".svc:8080");
    // A file on a mounted volume, or (the public keys) a mounted volume's directory itself.
    for (String file : List.of(read.get("kafka-config"), read.get("public-key"))) {
      assertThat(agent.getVolumeMounts())
          .as("%s: %s is on a mounted volume", kind.dir(), file)
          .anyMatch(m -> file.equals(m.getMountPath()) || file.startsWith(m.getMountPath() + "/"));
    }
  }

  private static List<String> arguments(Container agent) {
    List<String> args = new ArrayList<>();
    if (agent.getArgs() != null) {
      args.addAll(agent.getArgs());
    }
    return args;
  }

  /** The container's environment as the kubelet would set it on node {@value #NODE}. */
  private static Map<String, String> environment(AgentOverlay overlay) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar variable : overlay.agent().getEnv()) {
      if (variable.getValue() != null) {
        env.put(variable.getName(), variable.getValue());
      } else if (variable.getValueFrom() != null
          && variable.getValueFrom().getFieldRef() != null
          && "spec.nodeName".equals(variable.getValueFrom().getFieldRef().getFieldPath())) {
        env.put(variable.getName(), NODE);
      }
    }
    return env;
  }
}
