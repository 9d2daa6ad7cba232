package io.fleetwave.simulator.bench;

import java.io.IOException;

/** The baseline JVM: prints "ready" and waits for stdin to close; nothing else is loaded. */
public final class IdleMain {
  private IdleMain() {}

  public static void main(String[] args) throws IOException {
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() != -1) {
      // wait until the bench closes our stdin or kills us
    }
  }
}
