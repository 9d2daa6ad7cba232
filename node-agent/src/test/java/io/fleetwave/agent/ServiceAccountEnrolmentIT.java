package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.identity.NodeNameClaimTest;
import io.fleetwave.agent.kubernetes.KubernetesApi;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent in a pod of a Kubernetes 1.29 cluster: its token names no node, the control plane
 * refuses it, and the agent exits 2 naming Kubernetes 1.30+ and the API server's version, read from
 * the (stand-in) API server's /version.
 */
@ExtendWith(KafkaExtension.class)
class ServiceAccountEnrolmentIT {
  private static KafkaBroker kafka;
  @TempDir Path dir;

  @Test
  void onKubernetes129TheAgentExits2NamingTheRequirementAndTheApiServersVersion() throws Exception {
    kafka.createTopics(1, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
    Path host = Files.createDirectories(dir.resolve("host"));
    HostTree.talos(host).bootId("1-29-boot");
    HttpServer controlPlane =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controlPlane.createContext(
        "/api/v1/nodes/",
        exchange -> {
          try (exchange) {
            byte[] body =
                ("{\"status\":403,\"detail\":\"the service-account token names no node"
                        + " (authentication.kubernetes.io/node-name)\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(403, body.length);
            exchange.getResponseBody().write(body);
          }
        });
    controlPlane.start();
    try (KubernetesApi api =
        new KubernetesApi().node("gpu-1-29", Map.of()).version("1", "29", "v1.29.4")) {
      Map<String, String> env = new HashMap<>(api.podEnvironment(dir, "gpu-1-29"));
      Path token =
          Files.writeString(
              Path.of(env.get("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN")),
              NodeNameClaimTest.POD_TOKEN_1_29);
      Path log = dir.resolve("agent.log");
      Process agent =
          AgentProcess.start(
              env,
              List.of(),
              log,
              "--bootstrap",
              kafka.bootstrapServers(),
              "--host-root",
              host.toString(),
              "--control-plane",
              "http://"
                  + controlPlane.getAddress().getHostString()
                  + ":"
                  + controlPlane.getAddress().getPort(),
              "--service-account-token",
              token.toString());
      try {
        assertThat(agent.waitFor(90, TimeUnit.SECONDS)).as("the agent exits").isTrue();
        String output = Files.readString(log);
        assertThat(agent.exitValue()).as(output).isEqualTo(2);
        assertThat(output)
            .contains(
                "refused to enroll node 'gpu-1-29' (403): the service-account token names no node")
            .contains("Service-account enrolment needs Kubernetes 1.30 or later")
            .contains("and the API server is v1.29.4.");
      } finally {
        agent.destroyForcibly();
      }
    } finally {
      controlPlane.stop(0);
    }
  }
}
