/**
 * MIG configurations (the nvidia-mig-parted format): parsing, validation against the GPU catalogue,
 * packing layouts, and which configuration applies to a GPU. Pure: the YAML itself is read by
 * events' StrictYaml.
 */
package io.fleetwave.core.mig;
