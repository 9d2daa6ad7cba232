/**
 * The REST API (Jakarta REST resources), its problem responses and pagination, and the read queries
 * behind the node and fleet views.
 */
package io.fleetwave.controlplane.api;
