package io.fleetwave.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table like kubectl's: an upper-case header, columns left-aligned and separated by
 * three spaces, no trailing spaces; an empty cell shows as {@code -}.
 */
public final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(String... headers) {
    this.headers = Arrays.stream(headers).map(h -> h.toUpperCase(java.util.Locale.ROOT)).toList();
  }

  public Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "a row of " + cells.length + " cells in a table of " + headers.size() + " columns");
    }
    rows.add(Arrays.stream(cells).map(Table::cell).toList());
    return this;
  }

  public int size() {
    return rows.size();
  }

  private static String cell(Object value) {
    if (value == null) {
      return "-";
    }
    String text = value.toString().replace('\n', ' ').replace('\t', ' ');
    return text.isEmpty() ? "-" : text;
  }

  public String render() {
    int[] widths = new int[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = headers.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, widths);
    for (List<String> row : rows) {
      line(out, row, widths);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        line.append("   ");
      }
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(widths[i] - cells.get(i).length()));
      }
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }

  @Override
  public String toString() {
    return render();
  }
}
