package io.fleetwave.events.yaml;

import java.io.Serial;

/**
 * A YAML text {@link StrictYaml} refuses: where (the source's name, the 1-based line, the key when
 * there is one) and why, e.g. {@code fleet.yaml line 12: unknown field 'gpu' in nodes[0] (known:
 * [count, gpus, ...])}.
 */
public class YamlException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final String key;
  private final String reason;

  public YamlException(String source, int line, String key, String reason, Throwable cause) {
    super(message(source, line, reason), cause);
    this.source = source;
    this.line = line;
    this.key = key;
    this.reason = reason;
  }

  private static String message(String source, int line, String reason) {
    String where = (source == null ? "" : source) + (line > 0 ? " line " + line : "");
    return where.isBlank() ? reason : where.strip() + ": " + reason;
  }

  /** The name of the text (a file name), or null. */
  public String source() {
    return source;
  }

  /** 1-based; 0 when unknown. */
  public int line() {
    return line;
  }

  /** The mapping key the problem is at, or "" for the document. */
  public String key() {
    return key;
  }

  /** What is wrong, without where. */
  public String reason() {
    return reason;
  }
}
