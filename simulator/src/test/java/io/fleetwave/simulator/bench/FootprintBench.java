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
import java.util.Optional;
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
 * own JVM with the agent image's JVM options (read from node-agent/pom.xml, their one home: {@link
 * AgentImageFlags}), and prints its RSS (VmRSS from /proc/PID/status, split into anonymous and
 * file-backed) once it has published its first event and again after a settle period, its time and
 * its CPU time to the first published event, the RSS of an empty JVM with the same flags measured
 * in the same run, and the load average. Not a unit test: a measurement to read and compare (issue
 * 14: agent RSS at most 64 MB). {@code --aot-cache FILE} starts the agent from a JDK 25 AOT cache,
 * trained first by a run of the same agent where FILE does not exist; {@code --diagnose FILE}
 * writes jcmd's and /proc's view of the agent at its first event to FILE; {@code --class-archive
 * FILE} measures a restart with the DaemonSet's class archive (the JVM writes it at the exit of a
 * first start where FILE does not exist, and maps it from the next start on).
 *
 * <pre>
 * FootprintBench [--main CLASS] [--jvm-flags "FLAGS" (instead of the image's)] [--settle-seconds N]
 *                [--agent-classpath CP] [--kubernetes-node NAME] [--aot-cache FILE]
 *                [--diagnose FILE] [--class-archive FILE] [-- AGENT ARGS...]
 * </pre>
 *
 * In the agent arguments {@code {bootstrap}} is replaced by the broker address. Defaults: main
 * {@code io.fleetwave.simulator.FleetMain}, arguments {@code --bootstrap {bootstrap}}, the bench's
 * own (test) class path. {@code --kubernetes-node NAME} starts a stand-in Kubernetes API server
 * with a Node of that name and runs the agent as in a pod on it (it then reads its Node object).
 */
public final class FootprintBench {
  private static final long TARGET_RSS_KB = 64 * 1024;

  private FootprintBench() {}

  public static void main(String[] args) throws Exception {
    String mainClass = "io.fleetwave.simulator.FleetMain";
    String flags = null;
    int settleSeconds = 10;
    List<String> agentArgs = new ArrayList<>(List.of("--bootstrap", "{bootstrap}"));
    String classpath = System.getProperty("java.class.path");
    String kubernetesNode = null;
    Path diagnose = null;
    Path aotCache = null;
    Path classArchive = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--main" -> mainClass = args[++i];
        case "--agent-classpath" -> classpath = args[++i];
        case "--kubernetes-node" -> kubernetesNode = args[++i];
        case "--jvm-flags" -> flags = args[++i];
        case "--settle-seconds" -> settleSeconds = Integer.parseInt(args[++i]);
        case "--diagnose" -> diagnose = Path.of(args[++i]);
        case "--aot-cache" -> aotCache = Path.of(args[++i]);
        case "--class-archive" -> classArchive = Path.of(args[++i]);
        case "--" -> {
          agentArgs = new ArrayList<>(List.of(args).subList(i + 1, args.length));
          i = args.length;
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    // Default: the image's entrypoint options, native access included, and nothing else.
    List<String> jvmFlags =
        flags == null ? AgentImageFlags.fromRepository() : List.of(flags.trim().split("\\s+"));
    String flagsShown =
        String.join(" ", jvmFlags)
            + (flags == null ? " (node-agent/pom.xml: the image's)" : " (--jvm-flags)");

    Memory baseline = baselineRss(jvmFlags);
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
      kafka.createTopics(4, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
      // An agent given --public-key follows its spec: it waits for this topic before going on.
      kafka.createTopics(4, EmbeddedKafka.compacted(), Topics.NODE_DESIRED);
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
        String trained = "";
        if (aotCache != null && !Files.exists(aotCache)) {
          // The training run: the agent's own start path, recorded into the cache at its exit.
          List<String> training = new ArrayList<>(jvmFlags);
          training.add("-XX:AOTCacheOutput=" + aotCache);
          run(
              consumer,
              partitions,
              training,
              classpath,
              agentEnv,
              mainClass,
              resolvedArgs,
              2,
              Optional.empty());
          if (!Files.isRegularFile(aotCache) || Files.size(aotCache) == 0) {
            throw new IllegalStateException("the training run wrote no AOT cache to " + aotCache);
          }
          trained = ", trained in this run";
        }
        if (classArchive != null) {
          // The DaemonSet's restart cache: the JVM writes the archive at the exit of the node's
          // first start and maps it from the second on (deploy/agent/base/daemonset.yaml).
          jvmFlags = new ArrayList<>(jvmFlags);
          jvmFlags.addAll(
              List.of(
                  "-XX:+AutoCreateSharedArchive",
                  "-XX:SharedArchiveFile=" + classArchive,
                  "-Xlog:cds=error"));
          if (!Files.exists(classArchive)) {
            run(
                consumer,
                partitions,
                jvmFlags,
                classpath,
                agentEnv,
                mainClass,
                resolvedArgs,
                2,
                Optional.empty());
            if (!Files.isRegularFile(classArchive) || Files.size(classArchive) == 0) {
              throw new IllegalStateException(
                  "the first start wrote no class archive to " + classArchive);
            }
            trained = ", written by a first start in this run";
          }
        }
        List<String> measured = new ArrayList<>(jvmFlags);
        if (aotCache != null) {
          // on, not auto: a cache the JVM cannot use fails the run instead of measuring without.
          measured.addAll(List.of("-XX:AOTMode=on", "-XX:AOTCache=" + aotCache));
        }
        Measurement m =
            run(
                consumer,
                partitions,
                measured,
                classpath,
                agentEnv,
                mainClass,
                resolvedArgs,
                settleSeconds,
                Optional.ofNullable(diagnose));
        String aot =
            aotCache != null
                ? aotCache + " (" + Files.size(aotCache) / (1024 * 1024) + " MB" + trained + ")"
                : classArchive != null
                    ? "none; class archive "
                        + classArchive
                        + " (AutoCreateSharedArchive, "
                        + Files.size(classArchive) / (1024 * 1024)
                        + " MB"
                        + trained
                        + ")"
                    : "none";
        print(mainClass, resolvedArgs, flagsShown, aot, baseline, m, settleSeconds);
      }
    } finally {
      if (api != null) {
        api.close();
      }
    }
  }

  /** What one agent run measured, at its first event and after the settle period. */
  private record Measurement(
      Memory atFirstEvent,
      Memory settled,
      Duration firstEvent,
      Duration cpuToFirstEvent,
      Duration cpuWhileSettling,
      long events) {}

  /** Resident memory of a process: in all, anonymous (its own) and file-backed (shareable). */
  record Memory(long rssKb, long anonKb, long fileKb) {
    static final Memory GONE = new Memory(-1, -1, -1);

    static Memory of(long pid) throws IOException {
      Map<String, Long> status = new java.util.HashMap<>();
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        int colon = line.indexOf(':');
        if (line.startsWith("Rss") || line.startsWith("VmRSS")) {
          status.put(line.substring(0, colon), Long.parseLong(line.replaceAll("[^0-9]", "")));
        }
      }
      if (!status.containsKey("VmRSS")) {
        throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
      }
      return new Memory(
          status.get("VmRSS"),
          status.getOrDefault("RssAnon", -1L),
          status.getOrDefault("RssFile", -1L) + status.getOrDefault("RssShmem", 0L));
    }

    double mb() {
      return rssKb / 1024.0;
    }
  }

  private static Measurement run(
      KafkaConsumer<String, String> consumer,
      List<TopicPartition> partitions,
      List<String> jvmFlags,
      String classpath,
      Map<String, String> env,
      String mainClass,
      List<String> args,
      int settleSeconds,
      Optional<Path> diagnose)
      throws Exception {
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // only what this run publishes counts
    Process agent = launch(jvmFlags, classpath, env, mainClass, args);
    long started = System.nanoTime();
    try {
      Duration firstEvent = awaitFirstEvent(consumer, agent, started, Duration.ofSeconds(120));
      Memory atFirstEvent = Memory.of(agent.pid());
      Duration cpuAtFirstEvent = cpuTime(agent.pid());
      if (diagnose.isPresent()) {
        diagnose(agent.pid(), diagnose.get());
      }
      long settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(settleSeconds);
      long events = 1;
      while (System.nanoTime() < settleUntil && agent.isAlive()) {
        events += consumer.poll(Duration.ofMillis(250)).count();
      }
      boolean alive = agent.isAlive();
      return new Measurement(
          atFirstEvent,
          alive ? Memory.of(agent.pid()) : Memory.GONE,
          firstEvent,
          cpuAtFirstEvent,
          alive ? cpuTime(agent.pid()).minus(cpuAtFirstEvent) : Duration.ZERO,
          events);
    } finally {
      // A training run writes its AOT cache on the way out (a child JVM assembles it): give it
      // the time, it is not measured.
      stop(
          agent,
          Duration.ofSeconds(
              jvmFlags.stream()
                      .anyMatch(f -> f.contains("AOTCacheOutput") || f.contains("AutoCreateShared"))
                  ? 180
                  : 10));
    }
  }

  /** User + system CPU of all the process's threads (/proc/PID/stat, in USER_HZ = 100 ticks). */
  static Duration cpuTime(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // Fields after the command name, which is in parentheses and may hold spaces.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
    return Duration.ofMillis(ticks * 10);
  }

  private static void print(
      String mainClass,
      List<String> args,
      String flags,
      String aot,
      Memory baseline,
      Measurement m,
      int settleSeconds) {
    double peak = Math.max(m.atFirstEvent().mb(), m.settled().mb());
    System.out.println();
    System.out.println("Fleetwave agent footprint");
    System.out.println("  agent            : " + mainClass + " " + String.join(" ", args));
    System.out.println("  JVM flags        : " + flags);
    System.out.println("  AOT cache        : " + aot);
    System.out.printf(
        "  baseline RSS     : %6.1f MB (empty JVM, same flags; %.1f MB anonymous, %.1f MB"
            + " file)%n",
        baseline.mb(), baseline.anonKb() / 1024.0, baseline.fileKb() / 1024.0);
    System.out.printf(
        "  agent RSS        : %6.1f MB at first event, %6.1f MB after %d s%n",
        m.atFirstEvent().mb(), m.settled().mb(), settleSeconds);
    System.out.printf(
        "  agent RSS split  : %6.1f MB anonymous, %.1f MB file-backed (libjvm, CDS/AOT archive,"
            + " jars) at first event%n",
        m.atFirstEvent().anonKb() / 1024.0, m.atFirstEvent().fileKb() / 1024.0);
    System.out.printf("  agent - baseline : %6.1f MB%n", peak - baseline.mb());
    System.out.printf("  ratio agent / baseline RSS: %.2f%n", peak / baseline.mb());
    System.out.printf(
        "  first event after: %d ms (process start to first record on %s)%n",
        m.firstEvent().toMillis(), Topics.NODE_EVENTS);
    System.out.printf(
        "  agent CPU        : %d ms to first event (all threads; the load-independent start"
            + " cost), %d ms over the next %d s%n",
        m.cpuToFirstEvent().toMillis(), m.cpuWhileSettling().toMillis(), settleSeconds);
    System.out.println("  events seen      : " + m.events());
    System.out.printf("  load average     : %s%n", loadAverage());
    System.out.println(
        "  target <= 64 MB  : " + (peak <= TARGET_RSS_KB / 1024.0 ? "met" : "NOT met"));
  }

  private static String loadAverage() {
    try {
      String[] load = Files.readString(Path.of("/proc/loadavg")).split(" ", -1);
      return load[0]
          + " "
          + load[1]
          + " "
          + load[2]
          + " (1, 5, 15 min) on "
          + Runtime.getRuntime().availableProcessors()
          + " CPUs";
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static Memory baselineRss(List<String> flags) throws Exception {
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
                  // Flags that log (-Xlog, JFR) print before it: skip to the line that says so.
                  String line;
                  while ((line = out.readLine()) != null && !line.equals("ready")) {
                    // a JVM log line
                  }
                  return line;
                } catch (IOException e) {
                  return null;
                }
              });
      String line = ready.get(30, TimeUnit.SECONDS);
      if (!"ready".equals(line)) {
        throw new IllegalStateException("baseline JVM did not start: " + line);
      }
      return Memory.of(idle.pid());
    } finally {
      stop(idle, Duration.ofSeconds(10));
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
    if (flags.stream().noneMatch(f -> f.startsWith("--enable-native-access"))) {
      command.add("--enable-native-access=ALL-UNNAMED"); // --jvm-flags without it: NVML needs it
    }
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

  /**
   * What the agent holds at its first event, for finding where its memory goes: the native memory
   * summary (when the flags enable -XX:NativeMemoryTracking), the live classes of the heap and the
   * memory map's resident sizes, each from jcmd or /proc into one file.
   */
  private static void diagnose(long pid, Path file) throws IOException, InterruptedException {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    StringBuilder out = new StringBuilder();
    for (String command :
        List.of("VM.native_memory summary", "GC.heap_info", "GC.class_histogram", "Thread.print")) {
      List<String> line = new ArrayList<>(List.of(jcmd, Long.toString(pid)));
      line.addAll(List.of(command.split(" ", -1)));
      Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
      out.append("==== jcmd ").append(command).append('\n');
      out.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    out.append("==== /proc/").append(pid).append("/smaps_rollup\n");
    out.append(Files.readString(Path.of("/proc", Long.toString(pid), "smaps_rollup")));
    out.append("==== /proc/").append(pid).append("/smaps\n");
    out.append(Files.readString(Path.of("/proc", Long.toString(pid), "smaps")));
    Files.writeString(file, out);
  }

  private static void stop(Process process, Duration bound) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
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
