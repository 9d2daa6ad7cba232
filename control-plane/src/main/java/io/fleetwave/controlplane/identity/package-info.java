/**
 * Node identities: the keys nodes enroll (with a one-time join token or a Kubernetes
 * service-account token checked through the TokenReview API) and their revocation. Whether a record
 * of fleet.node-events is signed by its node's key is checked by the projection's {@code
 * NodeEventAuthenticity}, which the rollout engine shares.
 */
package io.fleetwave.controlplane.identity;
