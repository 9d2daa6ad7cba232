package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;
import org.hibernate.validator.constraints.time.DurationMin;

/** {@code fleetwave.commands.*}: how specs and commands are signed and sent to the agents. */
@ConfigMapping(prefix = "fleetwave.commands")
public interface CommandsConfig {
  /**
   * The Ed25519 key (PKCS#8 PEM or base64 DER) every spec and command is signed with; without it
   * the spec API answers 503 (the demo generates one).
   */
  Optional<String> privateKey();

  /**
   * A file holding that key (a mounted Kubernetes Secret), read at start; wins over {@link
   * #privateKey()}. Rotating the key: point it (or the Secret) at the new key and restart.
   */
  Optional<java.nio.file.Path> privateKeyFile();

  /** The bound on Kafka's acknowledgement of a spec or command. */
  @WithDefault("10s")
  @DurationMin(millis = 1)
  Duration sendTimeout();

  /** How long a one-shot command (a GPU reset) is valid after it is signed. */
  @WithDefault("5m")
  @DurationMin(seconds = 1)
  Duration lifetime();
}
