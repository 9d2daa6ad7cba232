package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.Min;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.rollout.*}: the rollout engine, operator requests and driver executors (see
 * application.properties for each executor's settings).
 */
@ConfigMapping(prefix = "fleetwave.rollout")
public interface RolloutConfig {
  Engine engine();

  /** How long an operator action waits for the engine leader to take it up before 202. */
  @WithDefault("10s")
  @DurationMin(millis = 1)
  Duration requestWait();

  /** {@code none} (unset), {@code webhook}, {@code kubernetes-job}, or one a provider adds. */
  Optional<String> driverExecutor();

  @WithName("driver-webhook")
  DriverWebhook driverWebhook();

  @WithName("driver-job")
  DriverJob driverJob();

  interface Engine {
    /** Run the rollout engine on this replica (one leads at a time). */
    @WithDefault("true")
    boolean enabled();

    /** Its idle tick. */
    @WithDefault("250ms")
    @DurationMin(millis = 1)
    Duration tick();

    /**
     * The leader lease (PostgreSQL): the leader renews it every quarter of this and stops acting
     * three quarters after its last renewal; another replica leads once it expired, so a leader
     * whose database connection dies silently is replaced within this and a quarter.
     */
    @WithDefault("8s")
    @DurationMin(millis = 400)
    Duration lease();

    /** The bound on each Kafka and PostgreSQL call it makes. */
    @WithDefault("10s")
    @DurationMin(millis = 1)
    Duration timeout();

    /**
     * Connections of the engine's own PostgreSQL pool (on its own event loop): its reads, the
     * rollout projection and the spec batches never queue behind the node-event projection or the
     * API on the shared pool.
     */
    @WithDefault("8")
    @Min(2)
    int poolSize();

    /**
     * The most specs one transaction signs, saves and sends: a wave start's specs go out in chunks
     * of this many ({@link #specChunksAtOnce} at once), so its first nodes get theirs without
     * waiting for the whole wave's batch.
     */
    @WithDefault("100")
    @Min(1)
    int specChunk();

    /**
     * How many of a carry-out's spec chunks are in flight at once (each its own transaction on the
     * engine's pool): while one waits for PostgreSQL or for Kafka's acknowledgement, the others are
     * signed and saved.
     */
    @WithDefault("4")
    @Min(1)
    int specChunksAtOnce();
  }

  interface DriverWebhook {
    /** Required with {@code driver-executor=webhook}. */
    Optional<String> url();

    /** Bound on connecting and on the answer. */
    @WithDefault("10s")
    @DurationMin(millis = 1)
    Duration timeout();

    /**
     * The HMAC-SHA256 key every request is signed with, {@code whsec_<base64>} (env {@code
     * FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET}); required with {@code webhook} unless {@link
     * #secretFile()} is set. Never on the command line: {@code -D} fails the start.
     */
    Optional<String> secret();

    /** A file holding that key (a mounted Secret), read at start; wins over {@link #secret()}. */
    Optional<Path> secretFile();
  }

  interface DriverJob {
    /** Path of the Job template; required with {@code driver-executor=kubernetes-job}. */
    Optional<String> template();

    /** Default: the Kubernetes client's namespace. */
    Optional<String> namespace();

    /** Bound on creating one Job. */
    @WithDefault("10s")
    @DurationMin(millis = 1)
    Duration timeout();
  }
}
