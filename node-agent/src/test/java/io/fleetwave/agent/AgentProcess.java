package io.fleetwave.agent;

import io.fleetwave.testsupport.processes.JavaCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real agent ({@link AgentMain}) in a JVM of its own, on this test's class path (the system
 * tier, system-tier/, starts its agents so too).
 */
public final class AgentProcess {
  private AgentProcess() {}

  /** With stdout and stderr merged, read from the process. */
  static Process start(String... args) throws Exception {
    return new ProcessBuilder(command(List.of(), args)).redirectErrorStream(true).start();
  }

  /** With its output in a file, which outlives the process (destroy closes pipes). */
  public static Process start(
      Map<String, String> env, List<String> jvmFlags, Path log, String... args) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command(jvmFlags, args)).redirectErrorStream(true);
    builder.redirectOutput(log.toFile()).environment().putAll(env);
    return builder.start();
  }

  /**
   * The options of an agent that publishes to {@code bootstrap} from the host tree at {@code
   * hostRoot}, a heartbeat a second (so a test sees it alive at once), then {@code more}.
   */
  static String[] heartbeating(String bootstrap, Path hostRoot, String... more) {
    List<String> args = new ArrayList<>();
    args.addAll(List.of("--bootstrap", bootstrap, "--host-root", hostRoot.toString()));
    args.addAll(List.of("--heartbeat-seconds", "1"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** Stops the agent as systemd or the kubelet would (SIGTERM), then kills it after the bound. */
  public static void stop(Process agent, Duration bound) throws InterruptedException {
    agent.destroy();
    if (!agent.waitFor(bound.toSeconds(), TimeUnit.SECONDS)) {
      agent.destroyForcibly();
    }
  }

  private static List<String> command(List<String> jvmFlags, String... args) {
    List<String> command = new ArrayList<>(JavaCommand.of(jvmFlags));
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(AgentMain.class.getName());
    command.addAll(List.of(args));
    return command;
  }
}
