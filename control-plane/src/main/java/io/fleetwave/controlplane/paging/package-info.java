/**
 * One page of a listing and the request for it (limit and cursor): shared by the read model, the
 * stores and the REST resources that list them.
 */
package io.fleetwave.controlplane.paging;
