package io.fleetwave.controlplane;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The identity and Kubernetes-label tests (three test profiles of their own) and the tests that
 * start the packaged control plane or a broker of their own (app, kafka), as one JUnit launch in
 * one of the control plane's three failsafe forks; see {@link OutageItsSuite} for why suites and
 * why this split. No class here runs in Quarkus' default test profile, so moving them out of {@link
 * ApiAndRolloutItsSuite} costs no second start of it.
 */
@Suite
@SelectPackages({
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes",
  "io.fleetwave.controlplane.app",
  "io.fleetwave.controlplane.kafka"
})
@IncludeClassNamePatterns(".*IT")
public class IdentityAndProcessItsSuite {}
