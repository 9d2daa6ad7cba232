/**
 * The network of tests: HTTP services stood in for, a TCP proxy that can black-hole its
 * connections, and a server that accepts connections and never answers.
 */
package io.fleetwave.testsupport.network;
