package io.fleetwave.agent.kubernetes;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * A stand-in Kubernetes API server (fabric8's mock server in CRUD mode, over TLS): Node objects are
 * created and read as on a real one; expectations set on it (a 403) answer before the CRUD store.
 */
public final class KubernetesApi implements AutoCloseable {
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  public KubernetesApi() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            true);
    server.init();
    client = server.createClient();
  }

  /** Creates a Node with these labels. */
  public KubernetesApi node(String name, Map<String, String> labels) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
    return this;
  }

  /** Every GET of this node is refused as RBAC refuses it. */
  public KubernetesApi forbid(String name) {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes/" + name)
        .andReturn(
            403,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage(
                    "nodes \""
                        + name
                        + "\" is forbidden: User"
                        + " \"system:serviceaccount:fleetwave:agent\" cannot get resource"
                        + " \"nodes\"")
                .build())
        .always();
    return this;
  }

  /** GET /version answers as an API server of this version does (e.g. 1, 29, v1.29.4). */
  public KubernetesApi version(String major, String minor, String gitVersion) {
    server.setVersionInfo(
        new VersionInfo.Builder()
            .withMajor(major)
            .withMinor(minor)
            .withGitVersion(gitVersion)
            .withPlatform("linux/amd64")
            .build());
    return this;
  }

  /** How a client reaches this server (trusting its self-signed certificate). */
  public Config config() {
    return client.getConfiguration();
  }

  public int port() {
    return server.getPort();
  }

  /**
   * The environment of a pod on node {@code nodeName} whose API server is this one, with a token
   * file under {@code dir} (fabric8's variables stand in for the mounted service account).
   */
  public Map<String, String> podEnvironment(Path dir, String nodeName) throws IOException {
    Path token = Files.writeString(dir.resolve("token"), "test-token");
    return Map.of(
        "KUBERNETES_SERVICE_HOST",
        "localhost",
        "KUBERNETES_SERVICE_PORT",
        Integer.toString(port()),
        "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN",
        token.toString(),
        "KUBERNETES_TRUST_CERTIFICATES",
        "true",
        "KUBERNETES_DISABLE_HOSTNAME_VERIFICATION",
        "true",
        "NODE_NAME",
        nodeName);
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
