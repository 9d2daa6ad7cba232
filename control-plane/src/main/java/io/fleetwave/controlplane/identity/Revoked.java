package io.fleetwave.controlplane.identity;

/** A node revoked: how many of its keys were still valid. */
public record Revoked(String node, int revokedKeys) {}
