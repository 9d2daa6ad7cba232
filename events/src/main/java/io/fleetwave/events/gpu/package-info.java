/**
 * The GPU model catalogue read from gpu-models.yaml: MIG geometry, profiles and placements, vGPU
 * types. Data, not code (docs/hardware-model.md).
 */
package io.fleetwave.events.gpu;
