/**
 * The NVIDIA driver model: versions, artifacts per provider (package, container image, OS image)
 * and which artifact a node gets. Pure (ArchitectureTest).
 */
package io.fleetwave.core.driver;
