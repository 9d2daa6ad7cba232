/**
 * Kubernetes label selectors: parsing with positioned errors, and matching a node's labels. Pure
 * (ArchitectureTest).
 */
package io.fleetwave.core.selector;
