package io.fleetwave.controlplane.identity;

/**
 * A node's enrolment: its public key and one bootstrap credential.
 *
 * @param publicKey the node's Ed25519 public key, X.509 PEM
 * @param joinToken a one-time join token an administrator created (hosts outside Kubernetes)
 * @param serviceAccountToken the agent pod's Kubernetes service-account token (checked with the
 *     TokenReview API)
 */
public record EnrolmentRequest(String publicKey, String joinToken, String serviceAccountToken) {}
