package dev.baton.bench.scale;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Prometheus pays per LeaderGroup: the operator's /metrics samples that carry a group label,
 * counted per namespace and group.
 */
record SeriesPerGroup(int groups, int max, double mean) {

  private static final Pattern GROUP = Pattern.compile("[{,]group=\"([^\"]*)\"");
  private static final Pattern NAMESPACE = Pattern.compile("[{,]namespace=\"([^\"]*)\"");

  static SeriesPerGroup of(String scrape) {
    Map<String, Integer> counts = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      Matcher g = GROUP.matcher(line);
      if (!g.find()) {
        continue;
      }
      Matcher ns = NAMESPACE.matcher(line);
      counts.merge((ns.find() ? ns.group(1) : "") + "/" + g.group(1), 1, Integer::sum);
    }
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    double mean = counts.values().stream().mapToInt(Integer::intValue).average().orElse(0);
    return new SeriesPerGroup(counts.size(), max, mean);
  }

  /** Scrapes the operator; nothing counted when it does not answer. */
  static SeriesPerGroup scrape(int httpPort) {
    try {
      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      return of(body);
    } catch (Exception e) {
      return new SeriesPerGroup(0, 0, Double.NaN);
    }
  }
}
