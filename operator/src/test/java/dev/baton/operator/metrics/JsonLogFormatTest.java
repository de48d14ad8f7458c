package dev.baton.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.operator.testing.CapturedOutput;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** BATON_LOG_FORMAT=json (here its system-property twin) gives one JSON object a line. */
class JsonLogFormatTest {

  @Test
  void jsonFormatWritesOneObjectPerLineWithTheResourceFromTheMdc() throws Exception {
    System.setProperty("baton.log.format", "json");
    Configurator.reconfigure();
    String line;
    try (CapturedOutput output = new CapturedOutput()) {
      MDC.put("resource.namespace", "shop");
      MDC.put("resource.name", "payments");
      LoggerFactory.getLogger("dev.baton.operator.test").info("payments-1 leads with term 7");
      MDC.clear();
      line =
          output
              .text()
              .lines()
              .filter(l -> l.contains("leads with term 7"))
              .findFirst()
              .orElseThrow();
    } finally {
      System.clearProperty("baton.log.format");
      Configurator.reconfigure();
    }
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("message").asText()).isEqualTo("payments-1 leads with term 7");
    assertThat(json.get("log.level").asText()).isEqualTo("INFO");
    assertThat(json.toString())
        .contains("\"resource.namespace\":\"shop\"")
        .contains("\"resource.name\":\"payments\"");
  }
}
