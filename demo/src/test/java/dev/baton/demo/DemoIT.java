package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The README's first command, end to end: the demo converges every step and cleans up. */
class DemoIT {

  @Test
  void demoConvergesEveryStepAndExitsZero() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit = Demo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(out);

    assertThat(exit).as(out).isZero();
    assertThat(out)
        .contains("== initial election")
        .contains("deleted")
        .contains("not ready")
        .contains("== Redis restarted empty")
        .contains("== switchover to")
        .contains("== lock nightly-migration taken by")
        .contains("== lock holder")
        .contains("Summary")
        .contains("never two leaders at once")
        .contains("Every step converged.")
        .doesNotContain("NOT CONVERGED");
    assertThat(out).containsPattern("payments-\\d\\s+leader\\s+ready\\s+term \\d+");
  }
}
