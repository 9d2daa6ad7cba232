/** Bounds on the time a piece of work may take. */
package io.fleetwave.controlplane.time;
