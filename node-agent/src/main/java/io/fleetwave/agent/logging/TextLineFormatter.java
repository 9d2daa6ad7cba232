package io.fleetwave.agent.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.temporal.ChronoUnit;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * {@code 2026-11-30T22:40:01.123Z INFO [NodeEventStream] node gpu-7 event Heartbeat ...}: the time
 * in UTC, the level, the logger's short name and the message on one line (a stack trace follows on
 * its own lines). The agent's text log, and the demo's file for the embedded services' records of a
 * start that failed.
 */
public final class TextLineFormatter extends Formatter {
  @Override
  public String format(LogRecord record) {
    StringBuilder line =
        new StringBuilder(160)
            .append(record.getInstant().truncatedTo(ChronoUnit.MILLIS))
            .append(' ')
            .append(String.format("%-5s", JsonLineFormatter.level(record)))
            .append(" [")
            .append(shortName(record.getLoggerName()))
            .append("] ")
            .append(formatMessage(record))
            .append(System.lineSeparator());
    if (record.getThrown() != null) {
      StringWriter trace = new StringWriter();
      record.getThrown().printStackTrace(new PrintWriter(trace));
      line.append(trace);
    }
    return line.toString();
  }

  private static String shortName(String logger) {
    if (logger == null) {
      return "";
    }
    return logger.substring(logger.lastIndexOf('.') + 1);
  }
}
