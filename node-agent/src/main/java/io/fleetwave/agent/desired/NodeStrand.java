package io.fleetwave.agent.desired;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * Runs one node's tasks one at a time, in submission order, on a pool shared by many nodes: a node
 * never reconciles twice at once, and no node needs a thread of its own.
 */
final class NodeStrand implements Executor {
  private static final System.Logger LOG = System.getLogger(NodeStrand.class.getName());

  private final String node;
  private final Executor pool;
  private final Queue<Runnable> tasks = new ArrayDeque<>();
  private boolean scheduled;

  NodeStrand(String node, Executor pool) {
    this.node = node;
    this.pool = pool;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (tasks) {
      tasks.add(task);
      if (scheduled) {
        return;
      }
      scheduled = true;
    }
    pool.execute(this::drain);
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (tasks) {
        next = tasks.poll();
        if (next == null) {
          scheduled = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "node " + node + ": task failed", e);
      }
    }
  }
}
