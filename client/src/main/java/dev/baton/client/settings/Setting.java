package dev.baton.client.settings;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * One environment variable of the agent or the operator: its name, parser, default and the README's
 * words for it. Each reads its settings through a list of these, and the README's tables of
 * settings are {@link #table(List)} of those lists, which a test compares.
 *
 * @param name the variable
 * @param parser turns the trimmed text into the value; an {@link IllegalArgumentException} it
 *     throws says what is wrong, without the variable's name
 * @param defaultValue the text parsed when the variable is absent or blank; null: none (reads give
 *     null, or a default the caller computes)
 * @param shownDefault the README's default column, in markdown; null: {@code defaultValue} in
 *     backticks, or {@code none} when it is null or empty
 * @param description the README's meaning column, in markdown (a line break reads as a space)
 * @param <T> the value's type
 */
public record Setting<T>(
    String name,
    Function<String, T> parser,
    String defaultValue,
    String shownDefault,
    String description) {

  /** The table's head, as README.md writes it. */
  public static final String TABLE_HEAD = "| variable | default | meaning |\n| --- | --- | --- |\n";

  private static final List<String> SECRET_WORDS = List.of("PASSWORD", "TOKEN", "SECRET");

  public Setting {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parser, "parser");
    Objects.requireNonNull(description, "description");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a setting needs a name");
    }
  }

  /** A setting whose README default is {@code defaultValue} in backticks, or none. */
  public Setting(String name, Function<String, T> parser, String defaultValue, String description) {
    this(name, parser, defaultValue, null, description);
  }

  /** A setting taken as its text, trimmed. */
  public static Setting<String> text(String name, String defaultValue, String description) {
    return new Setting<>(name, s -> s, defaultValue, description);
  }

  /** A setting taken as its text, trimmed, with the README's default column in words. */
  public static Setting<String> text(
      String name, String defaultValue, String shownDefault, String description) {
    return new Setting<>(name, s -> s, defaultValue, shownDefault, description);
  }

  /**
   * Reads the variable: absent or blank, its default; a value the parser refuses adds "NAME:
   * reason" to {@code problems} and reads as null.
   *
   * @return the value, or null when there is neither a value nor a default, or it was refused
   */
  public T read(Map<String, String> env, List<String> problems) {
    try {
      return readOrThrow(env);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
  }

  /**
   * Reads the variable as {@link #read(Map, List)} does, but throws its problem.
   *
   * @throws IllegalArgumentException "NAME: reason" when the parser refuses the value
   */
  public T readOrThrow(Map<String, String> env) {
    String raw = env.get(name);
    if (raw == null || raw.isBlank()) {
      raw = defaultValue;
    }
    if (raw == null) {
      return null;
    }
    try {
      return parser.apply(raw.trim());
    } catch (IllegalArgumentException e) {
      if (secret()) {
        // Neither the reason nor the cause: either may quote the value.
        throw new IllegalArgumentException(name + ": is not valid (its value is not shown)");
      }
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }

  /** Whether the value is a credential, never shown: the name holds PASSWORD, TOKEN or SECRET. */
  public boolean secret() {
    String upper = name.toUpperCase(Locale.ROOT);
    return SECRET_WORDS.stream().anyMatch(upper::contains);
  }

  /** The README's default column for this setting. */
  public String defaultColumn() {
    if (shownDefault != null) {
      return shownDefault;
    }
    return defaultValue == null || defaultValue.isEmpty() ? "none" : "`" + defaultValue + "`";
  }

  /**
   * The README's markdown table of these settings, in their order: a head, then one row per
   * setting, except that settings in a row with the same description share one row, their names
   * joined with ", " and their default columns too (once when they are the same).
   */
  public static String table(List<Setting<?>> settings) {
    StringBuilder out = new StringBuilder(TABLE_HEAD);
    int i = 0;
    while (i < settings.size()) {
      String description = settings.get(i).description();
      List<String> names = new ArrayList<>();
      Set<String> defaults = new LinkedHashSet<>();
      while (i < settings.size() && settings.get(i).description().equals(description)) {
        names.add("`" + settings.get(i).name() + "`");
        defaults.add(settings.get(i).defaultColumn());
        i++;
      }
      row(
          out,
          String.join(", ", names),
          String.join(", ", defaults),
          description.replace('\n', ' '));
    }
    return out.toString();
  }

  /** A row of cells: "| a | b |", and "| |" for an empty cell. */
  private static void row(StringBuilder out, String... cells) {
    for (String cell : cells) {
      out.append(cell.isEmpty() ? "| " : "| " + cell + " ");
    }
    out.append("|\n");
  }

  /** The name and the README's default: never a value. */
  @Override
  public String toString() {
    return name + " (default: " + defaultColumn() + ")";
  }
}
