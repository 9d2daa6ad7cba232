/**
 * The JSON wire form of envelopes and events, and the specific reason a record is rejected (the
 * field path and what was expected).
 */
package io.fleetwave.events.codec;
