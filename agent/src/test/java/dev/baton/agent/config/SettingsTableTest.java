package dev.baton.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.settings.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * README.md's table of the agent's settings, between its "settings: agent" markers, is {@link
 * AgentConfig#SETTINGS} rendered by {@link Setting#table}: a setting added, renamed or reworded in
 * the code fails here until the README takes the table this test prints.
 */
class SettingsTableTest {

  @Test
  void theReadmesTableIsTheSettingsList() throws IOException {
    String rendered = Setting.table(AgentConfig.SETTINGS);
    String readme = Files.readString(Path.of("..", "README.md"));
    String start = "<!-- settings: agent ";
    String end = "<!-- /settings: agent -->";
    int from = readme.indexOf(start);
    int to = readme.indexOf(end);
    assertThat(from).as("README.md's marker %s...-->", start).isNotNegative();
    assertThat(to).as("README.md's marker %s after the first", end).isGreaterThan(from);

    assertThat(readme.substring(readme.indexOf('\n', from) + 1, to).strip())
        .as("the table to paste into README.md:%n%n%s", rendered)
        .isEqualTo(rendered.strip());
  }
}
