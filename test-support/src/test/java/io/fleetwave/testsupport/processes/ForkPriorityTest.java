package io.fleetwave.testsupport.processes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A JVM whose session opens with {@code fleetwave.test.nice} set runs every thread, those it starts
 * after and the processes they start at that nice value; without it nothing changes. Run in a child
 * JVM of its own: a priority lowered cannot be raised again without privileges.
 */
class ForkPriorityTest {
  @Test
  void everyThreadAndEveryLaterThreadAndProcessRunAtTheNiceValue() throws Exception {
    assertThat(niceValuesIn("-Dfleetwave.test.nice=7")).hasSizeGreaterThan(3).containsOnly("7");
  }

  @Test
  void withoutTheSettingNothingChanges() throws Exception {
    assertThat(niceValuesIn()).isNotEmpty().doesNotContain("7");
  }

  private static List<String> niceValuesIn(String... settings) throws Exception {
    List<String> arguments = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
    arguments.addAll(List.of(settings));
    arguments.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    Process probe = new ProcessBuilder(JavaCommand.of(arguments)).redirectErrorStream(true).start();
    String output;
    try (var in = probe.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(probe.exitValue()).as(output).isZero();
    return output
        .lines()
        .filter(line -> line.startsWith("thread ") || line.startsWith("child "))
        .map(line -> line.substring(line.lastIndexOf(' ') + 1))
        .toList();
  }

  /** Opens the session as the launcher would, then prints each thread's and a child's nice. */
  public static final class Probe {
    public static void main(String[] args) throws Exception {
      new ForkPriority().launcherSessionOpened(null);
      Thread later = new Thread(() -> {});
      later.start();
      later.join();
      Thread running = new Thread(Probe::sleep, "started-after");
      running.start();
      try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
        for (Path task : tasks.toList()) {
          System.out.println("thread " + task.getFileName() + " " + niceOf(task.resolve("stat")));
        }
      }
      Process child = new ProcessBuilder("cat", "/proc/self/stat").start();
      String stat = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      child.waitFor();
      System.out.println("child " + niceField(stat));
      running.interrupt();
    }

    private static void sleep() {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private static String niceOf(Path stat) throws IOException {
      return niceField(Files.readString(stat));
    }

    /** proc(5): the 19th field of stat, counted after the command name's closing parenthesis. */
    private static String niceField(String stat) {
      return stat.substring(stat.lastIndexOf(")") + 2).split(" ", -1)[16];
    }
  }
}
