package dev.baton.operator.redisusers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.client.RedisException;

/**
 * The per-group rules are the ones docs/redis-acl.md prints, name keys exactly (no pattern another
 * resource's key could match), and a refusal's message repeats none of the command's arguments.
 */
class AclRulesTest {

  private static final Path DOC = Path.of("../docs/redis-acl.md");

  @Test
  void theDocumentedRulesAreTheOnesTheOperatorSets() throws IOException {
    String doc = Files.readString(DOC);
    assertThat(doc)
        .contains(String.join(" ", AclRules.group("shop", "payments", "shop/payments", List.of())));
    for (String rule : AclRules.lock("shop/migration")) {
      if (rule.startsWith("~")) {
        assertThat(doc).contains(rule);
      }
    }
  }

  @Test
  void keysAreNamedExactlyAndIncludeTheNamespacesLocks() {
    List<String> rules = AclRules.group("shop", "payments", "shop/payments", List.of("shop/x"));
    List<String> keys = rules.stream().filter(r -> r.startsWith("~")).toList();
    assertThat(keys)
        .contains(
            "~baton:{gate:shop/payments}",
            "~baton:{gate:shop/payments}:term",
            "~baton:{shop/payments}:leader",
            "~baton:{shop/payments}:handover",
            "~baton:{shop/x}:lock",
            "~baton:{shop/x}:token")
        .doesNotContain("~baton:{shop/payments}:term", "~baton:{shop/payments}:term-reserved")
        .allSatisfy(
            k -> assertThat(k.substring(1)).doesNotContainAnyWhitespaces().matches("[^*?\\[\\]]+"));
    assertThat(rules).startsWith("-@all").contains("resetkeys", "resetchannels");
  }

  @Test
  void aRefusalNamesTheCodeNotTheArguments() {
    String hash = "5b11618c2e44027877d0cd0921ed166b9f176f50587fc91e7534dd2946db77d6";
    String denied =
        AclCommands.explain(
            "ACL SETUSER",
            new RedisException(
                "NOPERM User baton has no permissions to run the 'acl|setuser' command. params: [u, #"
                    + hash
                    + "]"));
    assertThat(denied).contains("NOPERM", "+acl|setuser").doesNotContain(hash);
    String other =
        AclCommands.explain("ACL SETUSER", new RedisException("ERR Error in ACL SETUSER #" + hash));
    assertThat(other).contains("(ERR)").doesNotContain(hash);
  }
}
