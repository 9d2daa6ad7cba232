package io.fleetwave.demo;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * Every integration test of the demo module that {@link FleetProfilesItsSuite} does not run (the
 * drain and demo-mode profiles, the tests that start processes of their own, and the control
 * plane's tests that need the agent's or the simulator's code, which the control plane's module
 * does not depend on so that it builds beside them), as one JUnit launch in the module's other
 * failsafe fork. Named one by one: the control plane's test jar on this class path holds ITs of the
 * same packages, which a package selection would run here too. {@code ForkSuitesTest} keeps every
 * IT of the module in exactly one of the two suites.
 */
@Suite
@SelectClasses(
    names = {
      "io.fleetwave.demo.DemoStartIT",
      "io.fleetwave.demo.DriftDemoIT",
      "io.fleetwave.demo.SimulatedDriverExecutorIT",
      "io.fleetwave.demo.SimulatorDemoIT",
      "io.fleetwave.demo.rollouts.RolloutDrainIT",
      "io.fleetwave.demo.e2e.FleetEndToEndIT",
      "io.fleetwave.demo.e2e.AgentEnrolmentIT"
    })
public class OtherItsSuite {}
