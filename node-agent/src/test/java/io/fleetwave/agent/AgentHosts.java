package io.fleetwave.agent;

import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.events.security.CommandSigner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a real agent ({@link AgentProcess}) runs on in the tests: its host and its topics. */
final class AgentHosts {
  private AgentHosts() {}

  /**
   * A Talos host tree in a new directory under target/, with the gcc-built stand-in
   * libnvidia-ml.so.1 under its driver root and that many GPUs.
   */
  static Path talosWithStubNvml(String name, int gpus, String bootId) throws Exception {
    Path root = Files.createTempDirectory(Path.of("target"), name + "-").toAbsolutePath();
    StubNvmlLibrary.build(root.resolve("usr/local/lib64"));
    HostTree.talos(root).devices("/", gpus).bootId(bootId);
    return root;
  }

  /** The signer's public key in a new PEM file under target/, for the agent's --public-key. */
  static Path publicKeyFile(CommandSigner signer) throws IOException {
    Path key = Files.createTempFile(Path.of("target"), "command-key-", ".pem");
    return Files.writeString(key, signer.publicKeyPem());
  }

  /** The topics an agent reads and writes, one partition each; the desired specs compacted. */
  static void createTopics(KafkaBroker kafka) {
    kafka.createTopics(1, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(1, KafkaBroker.compacted(), Topics.NODE_DESIRED);
  }
}
