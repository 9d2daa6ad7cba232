/**
 * Problem details (RFC 9457, problem+json): what a refused request answers, raised anywhere as a
 * ProblemException and written by the REST edge. Below every package that refuses a request, so
 * none of them depends on the REST resources.
 */
package io.fleetwave.controlplane.problem;
