package io.fleetwave.controlplane.spec;

/**
 * One problem of a requested spec or command.
 *
 * @param field where, e.g. {@code gpus[0].instances}
 * @param message what is wrong, naming the GPU
 */
public record FieldError(String field, String message) {}
