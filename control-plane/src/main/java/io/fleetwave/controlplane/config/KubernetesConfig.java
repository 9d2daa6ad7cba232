package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.kubernetes.*}: what the control plane does to Kubernetes nodes (all off by
 * default; application.properties explains each drain setting).
 */
@ConfigMapping(prefix = "fleetwave.kubernetes")
public interface KubernetesConfig {
  GateLabels gateLabels();

  Drain drain();

  interface GateLabels {
    /** Set the node label {@code fleetwave.io/device-plugin-gate} (held | released). */
    @WithDefault("false")
    boolean enabled();
  }

  interface Drain {
    /** Cordon and drain each node around its change in a rollout. */
    @WithDefault("false")
    boolean enabled();

    /** Bound on evicting a node's pods and on their termination. */
    @WithDefault("5m")
    @DurationMin(millis = 1)
    Duration timeout();

    /** Pause between tries of an eviction a PodDisruptionBudget refused. */
    @WithDefault("5s")
    @DurationMin(millis = 1)
    Duration evictionRetry();

    /** Every pod leaves, except DaemonSet and mirror pods. */
    @WithDefault("false")
    boolean full();

    /** Pods asking for any of these resources (trailing {@code *}: a prefix) leave. */
    @WithDefault("nvidia.com/gpu,nvidia.com/mig-*")
    List<String> gpuResources();

    /** Label selector of further pods that leave. */
    Optional<String> podSelector();

    /** Label selector of pods waited for (finished or gone) before evictions start. */
    Optional<String> waitForSelector();

    /** Bound on that wait; the pods still running then are evicted. */
    @WithDefault("30m")
    @DurationMin(millis = 1)
    Duration waitForTimeout();

    /** GPU Operator operands paused during a MIG change where deployed. */
    @WithDefault("device-plugin,gpu-feature-discovery,dcgm-exporter,dcgm,nvsm")
    List<String> pausedOperands();
  }
}
