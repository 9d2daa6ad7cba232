package io.fleetwave.simulator;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The desired-state tests of agents that follow signed specs, rotate keys and delay their applies
 * (about 80 s), in one of the module's three failsafe forks; see {@link AgentOutageItsSuite}.
 */
@Suite
@SelectClasses(
    names = {
      "io.fleetwave.agent.desired.SpecFollowingIT",
      "io.fleetwave.agent.desired.KeyRotationIT",
      "io.fleetwave.agent.desired.ApplyDelayIT"
    })
public class SpecFollowingItsSuite {}
