/** Network faults for tests: a TCP proxy that can black-hole its connections. */
package io.fleetwave.testsupport.network;
