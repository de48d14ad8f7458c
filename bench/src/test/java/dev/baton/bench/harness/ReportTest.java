package dev.baton.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {

  @Test
  void numbersAreRoundedForDisplayOnly() {
    assertThat(Report.format(15_095.4)).isEqualTo("15,095");
    assertThat(Report.format(36.94)).isEqualTo("36.9");
    assertThat(Report.format(2.0)).isEqualTo("2.00");
    assertThat(Report.format(0.4)).isEqualTo("0.400");
    assertThat(Report.format(Double.NaN)).isEqualTo("–");
    assertThat(Report.format(8010L)).isEqualTo("8,010");
    assertThat(Report.format(null)).isEmpty();
  }

  @Test
  void markdownAndJsonCarryTheSameRows() {
    Report r = new Report(Map.of("nproc", 2));
    r.section("s", "A table", "what", "value").row("latency", 12.345).note("how");
    assertThat(r.markdown())
        .contains("## A table", "| what | value |", "| latency | 12.3 |", "- how", "- nproc: 2");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> sections = (List<Map<String, Object>>) r.json().get("sections");
    assertThat(sections.get(0).get("rows"))
        .asList()
        .containsExactly(Map.of("what", "latency", "value", 12.345));
  }

  @Test
  void nanBecomesNullInJson() {
    Report r = new Report(Map.of());
    r.section("s", "t", "v").row(Double.NaN);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> sections = (List<Map<String, Object>>) r.json().get("sections");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) sections.get(0).get("rows");
    assertThat(rows.get(0)).containsEntry("v", null);
  }
}
