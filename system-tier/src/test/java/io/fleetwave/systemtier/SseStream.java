package io.fleetwave.systemtier;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;

/** A server-sent-events stream read line by line on the HTTP client's threads. */
record SseStream(List<String> lines, CompletableFuture<?> done) {
  static SseStream open(FaultApi api, String path) {
    List<String> lines = new CopyOnWriteArrayList<>();
    CompletableFuture<?> done =
        FaultApi.http()
            .sendAsync(
                api.request(path).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.fromLineSubscriber(
                    new Flow.Subscriber<String>() {
                      @Override
                      public void onSubscribe(Flow.Subscription s) {
                        s.request(Long.MAX_VALUE);
                      }

                      @Override
                      public void onNext(String line) {
                        lines.add(line);
                      }

                      @Override
                      public void onError(Throwable error) {
                        lines.add("error: " + error);
                      }

                      @Override
                      public void onComplete() {}
                    }));
    return new SseStream(lines, done);
  }

  boolean ended() {
    return done.isDone();
  }

  /** The SSE ids received, in order. */
  List<Long> ids() {
    return lines.stream()
        .filter(l -> l.startsWith("id:"))
        .map(l -> Long.parseLong(l.substring(3).trim()))
        .toList();
  }
}
