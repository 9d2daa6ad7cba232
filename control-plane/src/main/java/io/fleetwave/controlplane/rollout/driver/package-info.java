/**
 * Changing a node's driver outside the agent: a webhook, a Kubernetes Job from a template, or none
 * configured.
 */
package io.fleetwave.controlplane.rollout.driver;
