package dev.baton.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one run: a few sections, each a table with named columns and notes that say how a
 * figure was measured. Rendered as Markdown (printed, and written with the same content to {@code
 * results.md}) and as JSON with the raw numbers ({@code results.json}).
 */
public final class Report {

  private final Map<String, Object> machine;
  private final List<Section> sections = new ArrayList<>();

  public Report(Map<String, Object> machine) {
    this.machine = machine;
  }

  public Section section(String id, String title, String... columns) {
    Section s = new Section(id, title, List.of(columns));
    sections.add(s);
    return s;
  }

  /** One table. Numbers keep full precision in JSON and are rounded for display only. */
  public static final class Section {
    final String id;
    final String title;
    final List<String> columns;
    final List<Map<String, Object>> rows = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    Section(String id, String title, List<String> columns) {
      this.id = id;
      this.title = title;
      this.columns = columns;
    }

    /** Adds a row: values in column order; a missing trailing value shows as empty. */
    public Section row(Object... values) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        row.put(columns.get(i), i < values.length ? values[i] : null);
      }
      rows.add(row);
      return this;
    }

    public boolean hasRows() {
      return !rows.isEmpty();
    }

    public Section note(String text) {
      notes.add(text);
      return this;
    }
  }

  public String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("# Baton benchmarks\n\n");
    machine.forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
    for (Section s : sections) {
      sb.append("\n## ").append(s.title).append("\n\n");
      sb.append("| ").append(String.join(" | ", s.columns)).append(" |\n");
      sb.append("|").append(" --- |".repeat(s.columns.size())).append('\n');
      for (Map<String, Object> row : s.rows) {
        sb.append('|');
        for (String c : s.columns) {
          sb.append(' ').append(format(row.get(c))).append(" |");
        }
        sb.append('\n');
      }
      if (!s.notes.isEmpty()) {
        sb.append('\n');
        s.notes.forEach(n -> sb.append("- ").append(n).append('\n'));
      }
    }
    return sb.toString();
  }

  /** Three significant digits at most, no scientific notation; integers as they are. */
  public static String format(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        return "–";
      }
      double a = Math.abs(d);
      if (a == 0) {
        return "0";
      }
      if (a >= 100) {
        return String.format(Locale.ROOT, "%,.0f", d);
      }
      if (a >= 10) {
        return String.format(Locale.ROOT, "%.1f", d);
      }
      if (a >= 1) {
        return String.format(Locale.ROOT, "%.2f", d);
      }
      return String.format(Locale.ROOT, "%.3f", d);
    }
    if (v instanceof Long || v instanceof Integer) {
      return String.format(Locale.ROOT, "%,d", ((Number) v).longValue());
    }
    return v.toString();
  }

  public Map<String, Object> json() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("machine", machine);
    List<Map<String, Object>> list = new ArrayList<>();
    for (Section s : sections) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", s.id);
      m.put("title", s.title);
      m.put("rows", s.rows.stream().map(Report::jsonRow).toList());
      m.put("notes", s.notes);
      list.add(m);
    }
    out.put("sections", list);
    return out;
  }

  private static Map<String, Object> jsonRow(Map<String, Object> row) {
    Map<String, Object> out = new LinkedHashMap<>();
    row.forEach(
        (k, v) -> out.put(k, v instanceof Double d && (d.isNaN() || d.isInfinite()) ? null : v));
    return out;
  }

  public void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), markdown());
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(dir.resolve("results.json").toFile(), json());
  }
}
