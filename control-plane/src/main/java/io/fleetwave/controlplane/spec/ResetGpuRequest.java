package io.fleetwave.controlplane.spec;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The body of {@code POST /api/v1/nodes/{name}/actions/reset-gpu}. */
public record ResetGpuRequest(@Schema(description = "GPU index", required = true) Integer gpu) {}
