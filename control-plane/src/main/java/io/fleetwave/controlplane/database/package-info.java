/**
 * What a failed PostgreSQL call means for its caller: data the server refused (sending it again
 * fails the same way) or work that did not run and may succeed later.
 */
package io.fleetwave.controlplane.database;
