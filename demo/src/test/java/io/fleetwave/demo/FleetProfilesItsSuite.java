package io.fleetwave.demo;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The demo module's integration tests over the fixtures' two shared fleets ({@code
 * DashboardFleetProfile}, {@code RolloutFleetProfile}; their pools keep the tests apart), as one
 * JUnit launch in one of the module's two failsafe forks; {@link OtherItsSuite} runs every other IT
 * in the other (about as long); {@code ForkSuitesTest} keeps every IT of the module in exactly one
 * of the two.
 *
 * <p>Why suites: with more than one fork, failsafe hands a fork one class per JUnit launch, and
 * Quarkus builds the application of each test profile when a launch discovers it and stops it at
 * the launch's end (quarkusio/quarkus#43979), so each {@code QuarkusTest} class built and started
 * its profile again: six builds and six starts for four profiles. Inside one launch Quarkus orders
 * the classes by profile and builds and starts each once.
 */
@Suite
@SelectClasses(
    names = {
      "io.fleetwave.demo.DashboardApiIT",
      "io.fleetwave.demo.DashboardBrowserIT",
      "io.fleetwave.demo.DriftBrowserIT",
      "io.fleetwave.demo.GrafanaPanelsIT",
      "io.fleetwave.demo.rollouts.RolloutEngineIT"
    })
public class FleetProfilesItsSuite {}
