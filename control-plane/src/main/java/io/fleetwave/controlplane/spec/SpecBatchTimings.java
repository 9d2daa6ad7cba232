package io.fleetwave.controlplane.spec;

import org.jboss.logging.Logger;

/**
 * How long each phase of one rollout spec batch took, from the call that made it (so its first
 * phase includes the wait for its turn among a wave start's chunks, for a connection and for
 * BEGIN): one DEBUG line per batch, to see where a wave start's time goes ({@code
 * quarkus.log.category."io.fleetwave.controlplane.spec".level=DEBUG}); at other levels it costs two
 * clock reads per batch.
 */
final class SpecBatchTimings {
  private static final Logger LOG = Logger.getLogger(SpecService.class);
  private final int size;
  private final StringBuilder phases = new StringBuilder();
  private final long first = System.nanoTime();
  private long last = first;

  SpecBatchTimings(int size) {
    this.size = size;
  }

  /** A phase that ran since the one before ended. */
  synchronized void mark(String phase) {
    if (!LOG.isDebugEnabled()) {
      return;
    }
    long now = System.nanoTime();
    phases.append(String.format(" %s %.1f", phase, (now - last) / 1e6));
    last = now;
  }

  /** A phase that ran alongside others, from {@code since}. */
  synchronized void span(String phase, long since) {
    if (LOG.isDebugEnabled()) {
      phases.append(String.format(" (%s %.1f)", phase, (System.nanoTime() - since) / 1e6));
    }
  }

  /** The last phase, and the batch's line. */
  synchronized void done(String phase) {
    mark(phase);
    if (LOG.isDebugEnabled()) {
      LOG.debugf(
          "spec batch of %d node(s): %.1f ms (ms per phase:%s)",
          (Object) size, (System.nanoTime() - first) / 1e6, phases);
    }
  }
}
