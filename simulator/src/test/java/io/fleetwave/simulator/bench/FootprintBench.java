package io.fleetwave.simulator.bench;

import io.fleetwave.agent.kubernetes.KubernetesApi;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.Topics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Footprint of ONE real agent process: starts an embedded broker, launches the agent main in its
 * own JVM with a tuned heap, and prints its RSS (VmRSS from /proc/PID/status) once it has published
 * its first event and again after a settle period, its time to first published event, and the RSS
 * of an empty JVM with the same flags measured in the same run. Not a unit test: a measurement to
 * read and compare (target: agent RSS at most 96 MB).
 *
 * <pre>
 * FootprintBench [--main CLASS] [--jvm-flags "FLAGS"] [--settle-seconds N]
 *                [--agent-classpath CP] [--kubernetes-node NAME] [-- AGENT ARGS...]
 * </pre>
 *
 * In the agent arguments {@code {bootstrap}} is replaced by the broker address. Defaults: main
 * {@code io.fleetwave.simulator.FleetMain}, arguments {@code --bootstrap {bootstrap}}, the bench's
 * own (test) class path. {@code --kubernetes-node NAME} starts a stand-in Kubernetes API server
 * with a Node of that name and runs the agent as in a pod on it (it then reads its Node object).
 */
public final class FootprintBench {
  static final String DEFAULT_FLAGS = "-Xmx32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k";
  private static final long TARGET_RSS_KB = 96 * 1024;

  private FootprintBench() {}

  public static void main(String[] args) throws Exception {
    String mainClass = "io.fleetwave.simulator.FleetMain";
    String flags = DEFAULT_FLAGS;
    int settleSeconds = 10;
    List<String> agentArgs = new ArrayList<>(List.of("--bootstrap", "{bootstrap}"));
    String classpath = System.getProperty("java.class.path");
    String kubernetesNode = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--main" -> mainClass = args[++i];
        case "--agent-classpath" -> classpath = args[++i];
        case "--kubernetes-node" -> kubernetesNode = args[++i];
        case "--jvm-flags" -> flags = args[++i];
        case "--settle-seconds" -> settleSeconds = Integer.parseInt(args[++i]);
        case "--" -> {
          agentArgs = new ArrayList<>(List.of(args).subList(i + 1, args.length));
          i = args.length;
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    List<String> jvmFlags = List.of(flags.trim().split("\\s+"));

    long baselineKb = baselineRss(jvmFlags);
    KubernetesApi api = null;
    Map<String, String> agentEnv = Map.of();
    if (kubernetesNode != null) {
      api =
          new KubernetesApi()
              .node(
                  kubernetesNode,
                  Map.of(
                      "topology.kubernetes.io/zone", "bench-zone-a",
                      "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"));
      agentEnv =
          api.podEnvironment(Files.createTempDirectory("fleetwave-bench-pod-"), kubernetesNode);
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(4, Topics.NODE_EVENTS);
      String bootstrap = kafka.bootstrapServers();
      List<String> resolvedArgs =
          agentArgs.stream().map(a -> a.replace("{bootstrap}", bootstrap)).toList();
      try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
        // Manual assignment, no consumer group: no rebalance delay inside the measured time.
        List<TopicPartition> partitions =
            consumer.partitionsFor(Topics.NODE_EVENTS, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        partitions.forEach(consumer::position);

        Process agent = launch(jvmFlags, classpath, agentEnv, mainClass, resolvedArgs);
        long started = System.nanoTime();
        try {
          Duration firstEvent = awaitFirstEvent(consumer, agent, started, Duration.ofSeconds(120));
          long rssAtFirstEvent = rssKb(agent.pid());
          long settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(settleSeconds);
          long events = 1;
          while (System.nanoTime() < settleUntil && agent.isAlive()) {
            events += consumer.poll(Duration.ofMillis(250)).count();
          }
          long rssSettled = agent.isAlive() ? rssKb(agent.pid()) : -1;
          print(
              mainClass,
              resolvedArgs,
              flags,
              baselineKb,
              rssAtFirstEvent,
              rssSettled,
              settleSeconds,
              firstEvent,
              events);
        } finally {
          stop(agent);
        }
      }
    } finally {
      if (api != null) {
        api.close();
      }
    }
  }

  private static void print(
      String mainClass,
      List<String> args,
      String flags,
      long baselineKb,
      long rssAtFirstEvent,
      long rssSettled,
      int settleSeconds,
      Duration firstEvent,
      long events) {
    System.out.println();
    System.out.println("Fleetwave agent footprint");
    System.out.println("  agent            : " + mainClass + " " + String.join(" ", args));
    System.out.println("  JVM flags        : " + flags);
    System.out.printf(
        "  baseline RSS     : %6.1f MB (empty JVM, same flags)%n", baselineKb / 1024.0);
    System.out.printf(
        "  agent RSS        : %6.1f MB at first event, %6.1f MB after %d s%n",
        rssAtFirstEvent / 1024.0, rssSettled / 1024.0, settleSeconds);
    System.out.printf(
        "  agent - baseline : %6.1f MB%n",
        (Math.max(rssAtFirstEvent, rssSettled) - baselineKb) / 1024.0);
    System.out.printf(
        "  first event after: %d ms (process start to first record on %s)%n",
        firstEvent.toMillis(), Topics.NODE_EVENTS);
    System.out.println("  events seen      : " + events);
    System.out.println(
        "  target <= 96 MB  : "
            + (Math.max(rssAtFirstEvent, rssSettled) <= TARGET_RSS_KB ? "met" : "NOT met"));
  }

  private static long baselineRss(List<String> flags) throws Exception {
    Process idle =
        launch(
            flags,
            System.getProperty("java.class.path"),
            Map.of(),
            IdleMain.class.getName(),
            List.of());
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(idle.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> ready =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return out.readLine();
                } catch (IOException e) {
                  return null;
                }
              });
      String line = ready.get(30, TimeUnit.SECONDS);
      if (!"ready".equals(line)) {
        throw new IllegalStateException("baseline JVM did not start: " + line);
      }
      return rssKb(idle.pid());
    } finally {
      stop(idle);
    }
  }

  private static Process launch(
      List<String> flags,
      String classpath,
      Map<String, String> env,
      String mainClass,
      List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    return builder
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .redirectOutput(
            mainClass.equals(IdleMain.class.getName())
                ? ProcessBuilder.Redirect.PIPE
                : ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  private static Duration awaitFirstEvent(
      KafkaConsumer<String, String> consumer, Process agent, long started, Duration bound) {
    long deadline = started + bound.toNanos();
    while (System.nanoTime() < deadline) {
      ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
      if (!records.isEmpty()) {
        return Duration.ofNanos(System.nanoTime() - started);
      }
      if (!agent.isAlive()) {
        throw new IllegalStateException(
            "the agent exited with " + agent.exitValue() + " before publishing");
      }
    }
    throw new IllegalStateException(
        "no event on " + Topics.NODE_EVENTS + " within " + bound.toSeconds() + " s");
  }

  static long rssKb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
  }

  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap) {
    Properties props = new Properties();
    props.putAll(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class.getName()));
    return new KafkaConsumer<>(props);
  }
}
