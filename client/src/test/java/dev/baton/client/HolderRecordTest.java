package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HolderRecordTest {

  @Test
  void encodesAndParsesBack() {
    HolderRecord r = new HolderRecord("eu-1", "shop", "payments-0", "6c1f", 42);
    assertThat(r.encode()).isEqualTo("eu-1|shop|payments-0|6c1f|42");
    assertThat(HolderRecord.parse(r.encode())).contains(r);
    assertThat(HolderRecord.prefix("eu-1", "shop", "payments-0", "6c1f") + "|42")
        .isEqualTo(r.encode());
  }

  @Test
  void valuesBatonDidNotWriteAreNotRecords() {
    assertThat(HolderRecord.parse(null)).isEmpty();
    assertThat(HolderRecord.parse("")).isEmpty();
    assertThat(HolderRecord.parse("some-other-tool")).isEmpty();
    assertThat(HolderRecord.parse("a|b|c|d|notanumber")).isEmpty();
    assertThat(HolderRecord.parse("a|b|c|d|1|extra")).isEmpty();
  }
}
