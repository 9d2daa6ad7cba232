/**
 * Node identities: the keys nodes enroll (with a one-time join token or a Kubernetes
 * service-account token checked through the TokenReview API), their revocation, and the check every
 * reader of fleet.node-events makes that a record is signed by its node's enrolled key.
 */
package io.fleetwave.controlplane.identity;
