package dev.baton.kubectl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * JSON and YAML as kubectl prints them: indented JSON, block-style YAML without a document marker.
 */
final class Printing {

  private Printing() {}

  static String json(Object value) {
    try {
      return new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String yaml(Object value) {
    try {
      return new ObjectMapper(
              YAMLFactory.builder()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                  .build())
          .writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void print(PrintStream out, Commands.Format format, Object value) {
    switch (format) {
      case json -> out.println(json(value));
      case yaml -> out.print(yaml(value));
    }
  }
}
