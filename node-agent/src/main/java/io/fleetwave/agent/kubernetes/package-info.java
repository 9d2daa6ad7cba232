/**
 * Reads the agent's own Kubernetes Node object (fabric8): zone and labels, with a bounded fallback
 * when the API server does not answer.
 */
package io.fleetwave.agent.kubernetes;
