package io.fleetwave.simulator;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The simulated fleet's tests, spec following at fleet scale and the replay matrix (about 80 s), in
 * one of the module's three failsafe forks; see {@link AgentOutageItsSuite}. The last two run here
 * rather than beside their package's tests to even out the two forks.
 */
@Suite
@SelectClasses(
    names = {
      "io.fleetwave.simulator.SimulatedFleetIT",
      "io.fleetwave.simulator.SimulatedFleetScaleIT",
      "io.fleetwave.simulator.SimulatedDriverInstallIT",
      "io.fleetwave.simulator.FleetMainIT",
      "io.fleetwave.agent.desired.SpecFollowingScaleIT",
      "io.fleetwave.agent.desired.ReplayMatrixIT"
    })
public class FleetItsSuite {}
