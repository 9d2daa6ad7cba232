package io.fleetwave.controlplane.identity;

/**
 * A node revoked: how many of its keys were still valid, and whether its own KafkaUser was deleted
 * (false when it had none, or the control plane makes none).
 */
public record Revoked(String node, int revokedKeys, boolean kafkaUserDeleted) {}
