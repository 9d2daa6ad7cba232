/**
 * The control plane's own settings ({@code fleetwave.*}), one SmallRye {@code @ConfigMapping} per
 * concern, with their defaults and bounds: a value out of bounds stops the start naming the
 * property. Framework-owned settings ({@code quarkus.*}, {@code mp.messaging.*}, {@code kafka.*})
 * stay with the framework.
 */
package io.fleetwave.controlplane.config;
