/**
 * A node's desired state: GPUs with their MIG layout or vGPU setting, the driver, and how the
 * device-plugin gate follows the spec.
 */
package io.fleetwave.events.spec;
