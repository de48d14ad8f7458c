package dev.baton.kubectl;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns as kubectl prints them: upper-case headers, padded with spaces, no borders. */
final class Table {

  private final List<String[]> rows = new ArrayList<>();

  Table(String... headers) {
    rows.add(headers);
  }

  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = cells[i] == null || cells[i].toString().isEmpty() ? "-" : cells[i].toString();
    }
    rows.add(r);
    return this;
  }

  boolean isEmpty() {
    return rows.size() == 1;
  }

  void print(PrintStream out, String indent) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < columns; i++) {
        line.append(r[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 3));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
