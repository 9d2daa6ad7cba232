package io.fleetwave.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** fleetctl run in-process with its output captured. */
record Run(int exit, String out, String err) {
  static Run of(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine line = Fleetctl.commandLine(new Fleetctl(env));
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    int exit = line.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static Run of(String... args) {
    return of(Map.of(), args);
  }

  @Override
  public String toString() {
    return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
  }
}
