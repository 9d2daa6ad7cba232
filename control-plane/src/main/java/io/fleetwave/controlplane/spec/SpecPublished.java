package io.fleetwave.controlplane.spec;

/** The 202 answer of a PUT spec: the generation now on fleet.node-desired. */
public record SpecPublished(String node, long generation) {}
