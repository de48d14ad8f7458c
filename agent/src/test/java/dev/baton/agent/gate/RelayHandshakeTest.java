package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RelayHandshakeTest {

  private static RelayHandshake of(String namespace, String group, int port, String secret) {
    RelayHandshake h = new RelayHandshake(namespace, port, secret);
    h.groupFrom(() -> group);
    return h;
  }

  private static String line(byte[] said) {
    String s = new String(said, StandardCharsets.US_ASCII);
    assertThat(s).endsWith("\n");
    return s.substring(0, s.length() - 1);
  }

  @Test
  void aRelayOfTheSameGroupForTheOpenTermOrANewerOneIsTaken() {
    RelayHandshake h = of("shop", "orders", 7001, null);
    assertThat(line(h.say(3))).isEqualTo("BATON-RELAY/3 shop/orders 3 7001 -");
    assertThat(h.refusal(line(h.say(3)), 3)).isNull();
    assertThat(h.refusal(line(h.say(4)), 3)).isNull();
    assertThat(RelayHandshake.asksForPassing(line(h.say(3)))).isTrue();
  }

  @Test
  void aRelayOfVersionTwoIsTakenAndToldNothingOfPassing() {
    RelayHandshake signed = of("shop", "orders", 7001, "s3cret");
    String two = line(signed.say(3, RelayHandshake.VERSION_2));
    assertThat(two).startsWith("BATON-RELAY/2 shop/orders 3 7001 ");
    assertThat(signed.refusal(two, 3)).isNull();
    assertThat(RelayHandshake.asksForPassing(two)).isFalse();
    // The version is signed: a line of one cannot be passed off as the other.
    assertThat(signed.refusal(two.replace("/2 ", "/3 "), 3)).contains("secret");
  }

  @Test
  void anotherGroupAnotherNamespaceAnOlderTermOrAnotherPortIsRefused() {
    RelayHandshake h = of("shop", "orders", 7001, null);
    assertThat(h.refusal(line(of("shop", "payments", 7001, null).say(3)), 3))
        .contains("shop/payments");
    assertThat(h.refusal(line(of("dev", "orders", 7001, null).say(3)), 3)).contains("dev/orders");
    assertThat(h.refusal(line(h.say(2)), 3)).contains("older");
    assertThat(h.refusal(line(of("shop", "orders", 7002, null).say(3)), 3)).contains("port 7002");
  }

  @Test
  void withASecretOnlyALineSignedWithItIsTaken() {
    RelayHandshake signed = of("shop", "orders", 7001, "s3cret");
    assertThat(signed.refusal(line(signed.say(3)), 3)).isNull();
    assertThat(signed.refusal(line(of("shop", "orders", 7001, "other").say(3)), 3))
        .contains("secret");
    assertThat(signed.refusal(line(of("shop", "orders", 7001, null).say(3)), 3)).contains("secret");
    // The term is signed: a relay cannot claim a newer term than it was given.
    String forged = line(signed.say(3)).replace(" 3 ", " 9 ");
    assertThat(signed.refusal(forged, 3)).contains("secret");
  }

  @Test
  void garbageAndNothingAreRefused() {
    RelayHandshake h = of("shop", "orders", 7001, null);
    assertThat(h.refusal(null, 0)).contains("no preamble");
    assertThat(h.refusal("GET / HTTP/1.1", 0)).contains("not a relay");
    assertThat(h.refusal("BATON-RELAY/1 shop 7001", 0)).contains("not a relay");
    assertThat(h.refusal("BATON-RELAY/2 shop/orders x 7001 -", 0)).contains("not a relay");
  }

  @Test
  void anAgentThatKnowsNoGroupSaysNothingAndTakesNothing() {
    RelayHandshake h = of("shop", null, 7001, null);
    assertThat(h.say(1)).isNull();
    assertThat(h.refusal("BATON-RELAY/2 shop/orders 1 7001 -", 0)).contains("not this pod");
  }
}
