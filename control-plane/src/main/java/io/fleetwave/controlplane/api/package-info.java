/**
 * The REST API (Jakarta REST resources), its problem responses and pagination; the node and fleet
 * views come from the read model (readmodel/).
 */
package io.fleetwave.controlplane.api;
