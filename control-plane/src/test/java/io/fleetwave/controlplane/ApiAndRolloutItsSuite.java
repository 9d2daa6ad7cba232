package io.fleetwave.controlplane;

import org.junit.platform.suite.api.ExcludePackages;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * Every control-plane integration test that {@link OutageAndIdentityItsSuite} does not run (the
 * API, projection, rollout, spec, security, production-start and Kafka tests), as one JUnit launch
 * in the other failsafe fork; see there for why. The excluded packages are exactly the other
 * suite's.
 */
@Suite
@SelectPackages("io.fleetwave.controlplane")
@ExcludePackages({
  "io.fleetwave.controlplane.fault",
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes"
})
@IncludeClassNamePatterns(".*IT")
public class ApiAndRolloutItsSuite {}
