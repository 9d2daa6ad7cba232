/** fleetctl, the command line: nodes, specs, MIG configurations and rollouts over the REST API. */
package io.fleetwave.cli;
