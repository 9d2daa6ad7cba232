/** Child JVMs that tests start: their command line. */
package io.fleetwave.testsupport.processes;
