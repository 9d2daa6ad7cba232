package io.fleetwave.events.spec;

/**
 * One rule a GPU's spec breaks.
 *
 * @param field the field path inside the GPU's spec, e.g. {@code instances.3g.40gb}, {@code vfs},
 *     {@code vgpuTypes.0}
 * @param message what is wrong, naming the model, the limit and what was asked
 */
public record SpecViolation(String field, String message) {}
