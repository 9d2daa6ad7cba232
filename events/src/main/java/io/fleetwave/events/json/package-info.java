/**
 * Jackson at the bottom of the contract: the payload mapper's rules and how a refusal names its
 * field path. The codecs, the strict YAML reader and the GPU catalogue build on it.
 */
package io.fleetwave.events.json;
