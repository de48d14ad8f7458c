package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

/** Strategic merge patches of workload kinds merge keyed lists as the API server does. */
class KeyedMergeTest {

  private static JsonNode json(String s) throws Exception {
    return Serialization.jsonMapper().readTree(s.replace('\'', '"'));
  }

  @Test
  void containersAndEnvMergeByNameInTheOrderAsked() throws Exception {
    JsonNode stored =
        json(
            "{'metadata':{'labels':{'chart':'0.1.0','keep':'x'}},'spec':{'template':{'spec':"
                + "{'containers':[{'name':'operator','image':'a','env':[{'name':'A','value':'1'},"
                + "{'name':'B','value':'2'}]},{'name':'side','image':'s'}]}}}}");
    JsonNode patch =
        json(
            "{'metadata':{'labels':{'chart':'0.2.0'}},'spec':{'template':{'spec':"
                + "{'$setElementOrder/containers':[{'name':'operator'},{'name':'side'}],"
                + "'containers':[{'name':'operator','$setElementOrder/env':[{'name':'A'},"
                + "{'name':'C'},{'name':'B'}],'env':[{'name':'C','value':'3'}]},"
                + "{'name':'side','$patch':'delete'}]}}}}");

    assertThat(KeyedMerge.unsupported(patch)).isNull();
    JsonNode merged = KeyedMerge.merge(stored, patch);

    assertThat(merged.path("metadata").path("labels").toString())
        .isEqualTo("{\"chart\":\"0.2.0\",\"keep\":\"x\"}");
    JsonNode containers = merged.path("spec").path("template").path("spec").path("containers");
    assertThat(containers).hasSize(1);
    assertThat(containers.get(0).path("image").asText()).isEqualTo("a");
    assertThat(containers.get(0).path("env").toString())
        .isEqualTo(
            "[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"C\",\"value\":\"3\"},"
                + "{\"name\":\"B\",\"value\":\"2\"}]");
  }

  @Test
  void aServicesPortsMergeByPortAndUnknownDirectivesAreRefused() throws Exception {
    JsonNode merged =
        KeyedMerge.merge(
            json("{'spec':{'ports':[{'port':80,'name':'http'},{'port':9090,'name':'m'}]}}"),
            json("{'spec':{'ports':[{'port':9090,'name':'metrics'}]}}"));
    assertThat(merged.path("spec").path("ports").toString())
        .isEqualTo("[{\"port\":80,\"name\":\"http\"},{\"port\":9090,\"name\":\"metrics\"}]");
    assertThat(KeyedMerge.unsupported(json("{'spec':{'strategy':{'$retainKeys':['type']}}}")))
        .isEqualTo("directive $retainKeys");
  }
}
