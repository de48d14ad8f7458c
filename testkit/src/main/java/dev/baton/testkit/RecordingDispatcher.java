package dev.baton.testkit;

import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/** Hands every request the embedded API receives to the {@link ApiRequestLog} first. */
final class RecordingDispatcher extends Dispatcher {

  private final Dispatcher next;

  RecordingDispatcher(Dispatcher next) {
    this.next = next;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    ApiRequestLog.received(request);
    return next.dispatch(request);
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }
}
