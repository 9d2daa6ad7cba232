/**
 * The network of tests: HTTP services stood in for, and a TCP proxy that can black-hole its
 * connections.
 */
package io.fleetwave.testsupport.network;
