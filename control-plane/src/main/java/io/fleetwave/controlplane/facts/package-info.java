/**
 * fleet.control-facts: appending the control plane's own facts, acknowledged before the request
 * that made them succeeds, and applying each once (by its envelope id) to the tables that project
 * them. The areas own their facts' SQL; this package knows none of it.
 */
package io.fleetwave.controlplane.facts;
