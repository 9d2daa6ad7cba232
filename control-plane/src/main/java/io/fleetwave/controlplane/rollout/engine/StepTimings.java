package io.fleetwave.controlplane.rollout.engine;

import org.jboss.logging.Logger;

/**
 * How long each part of the engine's decision steps took (gathering the decider's input, deciding,
 * the acknowledged append, the decision log lines, the fold, handing the effects over) and the
 * round's projection: one DEBUG line per step that appended something, to see where the time
 * between a node's result and the next start goes ({@code
 * quarkus.log.category."io.fleetwave.controlplane.rollout.engine.StepTimings".level=DEBUG}). Costs
 * nothing at other levels but a few clock reads.
 */
final class StepTimings {
  private static final Logger LOG = Logger.getLogger(StepTimings.class);
  private final boolean enabled = LOG.isDebugEnabled();
  private int candidates;
  private int appended;
  private long gatherNanos;
  private long last;
  private long decideNanos;
  private long appendNanos;
  private long logNanos;
  private long foldNanos;

  void gathered(int candidates, long since) {
    if (enabled) {
      this.candidates = candidates;
      last = System.nanoTime();
      gatherNanos = last - since;
    }
  }

  void decided() {
    decideNanos = lap();
  }

  void appended(int events) {
    appended = events;
    appendNanos = lap();
  }

  void logged() {
    logNanos = lap();
  }

  void folded() {
    foldNanos = lap();
  }

  void carriedOut(String rollout) {
    long effectsNanos = lap();
    if (enabled) {
      LOG.debugf(
          "rollout %s: step of %d event(s), %d candidate(s): gather %.1f, decide %.1f, append"
              + " %.1f, log lines %.1f, fold %.1f, effects handed over %.1f ms",
          rollout,
          appended,
          candidates,
          gatherNanos / 1e6,
          decideNanos / 1e6,
          appendNanos / 1e6,
          logNanos / 1e6,
          foldNanos / 1e6,
          effectsNanos / 1e6);
    }
  }

  void projected(String rollout, int events, long since) {
    if (enabled) {
      LOG.debugf(
          "rollout %s: projection of the round's %d event(s) %.1f ms",
          rollout, events, (System.nanoTime() - since) / 1e6);
    }
  }

  private long lap() {
    if (!enabled) {
      return 0;
    }
    long now = System.nanoTime();
    long lap = now - last;
    last = now;
    return lap;
  }
}
