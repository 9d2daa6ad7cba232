/**
 * MIG configurations (the nvidia-mig-parted format): parsing, validation against the GPU catalogue,
 * packing layouts, and which configuration applies to a GPU. Pure but for YamlTreeReader
 * (ArchitectureTest).
 */
package io.fleetwave.controlplane.mig;
