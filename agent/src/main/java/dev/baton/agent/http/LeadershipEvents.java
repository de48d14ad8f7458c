package dev.baton.agent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.baton.agent.leadership.AgentLeadership;
import dev.baton.agent.leadership.LeadershipView;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /v1/leadership/events}: Server-Sent Events, the current view first, then one {@code
 * leadership} event per change, and a comment line every 15 s so that proxies keep it open.
 */
final class LeadershipEvents {

  private static final long KEEP_ALIVE_SECONDS = 15;

  private final AgentLeadership leadership;
  private final ObjectMapper json;
  private volatile boolean closed;

  LeadershipEvents(AgentLeadership leadership, ObjectMapper json) {
    this.leadership = leadership;
    this.json = json;
  }

  void stream(HttpExchange ex) throws IOException, InterruptedException {
    BlockingQueue<LeadershipView> changes = new LinkedBlockingQueue<>();
    Runnable stop = leadership.watch(changes::add);
    try {
      ex.getResponseHeaders().set("Content-Type", "text/event-stream");
      ex.getResponseHeaders().set("Cache-Control", "no-cache");
      ex.sendResponseHeaders(200, 0);
      OutputStream out = ex.getResponseBody();
      LeadershipView last = leadership.view();
      send(out, last);
      while (!closed) {
        LeadershipView v = changes.poll(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
        if (v == null) {
          out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
        } else if (!v.equals(last)) {
          send(out, v);
          last = v;
        }
      }
    } finally {
      stop.run();
    }
  }

  private void send(OutputStream out, LeadershipView v) throws IOException {
    out.write(
        ("event: leadership\ndata: " + json.writeValueAsString(v) + "\n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  void close() {
    closed = true;
  }
}
