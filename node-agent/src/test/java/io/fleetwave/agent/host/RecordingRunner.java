package io.fleetwave.agent.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A CommandRunner for tests: records every command and answers with a scripted result. */
public final class RecordingRunner implements CommandRunner {
  private final List<List<String>> commands = new ArrayList<>();
  private final Function<List<String>, CommandResult> answer;

  public RecordingRunner(Function<List<String>, CommandResult> answer) {
    this.answer = answer;
  }

  public static RecordingRunner succeeding() {
    return new RecordingRunner(argv -> ok(argv));
  }

  /**
   * Every command succeeds but the one whose last argument is {@code last} (a module, a device): it
   * exits 1 with {@code stderr}.
   */
  public static RecordingRunner failingOn(String last, String stderr) {
    return new RecordingRunner(
        argv -> argv.getLast().equals(last) ? failed(argv, 1, stderr) : ok(argv));
  }

  public static CommandResult ok(List<String> argv) {
    return new CommandResult(argv, 0, "", "");
  }

  public static CommandResult failed(List<String> argv, int code, String stderr) {
    return new CommandResult(argv, code, "", stderr);
  }

  @Override
  public synchronized CommandResult run(List<String> argv, Duration timeout) {
    commands.add(List.copyOf(argv));
    return answer.apply(argv);
  }

  public synchronized List<List<String>> commands() {
    return List.copyOf(commands);
  }
}
