/**
 * Kubernetes at the edge (fabric8): the gate label, cordon and drain around a node's change, and
 * the marks that let a new leader restore a node.
 */
package io.fleetwave.controlplane.kubernetes;
