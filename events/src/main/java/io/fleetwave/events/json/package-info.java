/**
 * Jackson at the bottom of the contract: the payload mapper's rules, how a refusal names its field
 * path, and the wire names of enums ({@link io.fleetwave.events.json.WireNamed}). The codecs, the
 * strict YAML reader and the GPU catalogue build on it.
 */
package io.fleetwave.events.json;
