/**
 * Fleet files: which simulated nodes to run (host kinds, OS versions, GPU groups), parsed with
 * specific errors.
 */
package io.fleetwave.simulator.fleet;
