package io.fleetwave.simulator;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * AgentBrokerOutageIT alone, one of the simulator module's three suites of integration tests, each
 * run by failsafe as one JUnit launch in a fork of its own ({@code it.forks.outages}, 3): its 70 s
 * outage is waited out from the fork's first second while {@link SpecFollowingItsSuite} and {@link
 * FleetItsSuite} share the rest in the other two (about 80 s each). Handed out class by class, the
 * outage test started only after a fork had finished another class, and the module's tests ended
 * with it alone. Each suite names its classes (the node agent's test jar on this class path holds
 * ITs of the same packages); {@code ForkSuitesTest} keeps every IT of the module in exactly one.
 */
@Suite
@SelectClasses(names = "io.fleetwave.agent.publish.AgentBrokerOutageIT")
public class AgentOutageItsSuite {}
