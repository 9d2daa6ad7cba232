/**
 * Why each change a rollout plans takes its node out of service (Disruption) and one node's time
 * out of service as the drain needs it (NodeOutage), pure.
 */
package io.fleetwave.core.rollout.disruption;
