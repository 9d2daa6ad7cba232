package io.fleetwave.controlplane;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The identity and Kubernetes-label tests (three test profiles of their own) and the tests that
 * start the packaged control plane or a broker of their own (app, kafka), as one JUnit launch in
 * one of the control plane's three failsafe forks; see {@link OutageItsSuite} for why suites and
 * why this split. No class here runs in Quarkus' default test profile, so moving them out of {@link
 * ApiAndRolloutItsSuite} costs no second start of it.
 *
 * <p>The classes named below are catch-all tests with a test profile of their own: they run here,
 * where the fork ends a minute or more before the catch-all's (LargeRolloutIT's), and take their
 * profile's build and start with them ({@link ApiAndRolloutItsSuite} excludes them by name; {@code
 * ForkSuitesTest} checks both).
 */
@Suite
@SelectPackages({
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes",
  "io.fleetwave.controlplane.app",
  "io.fleetwave.controlplane.kafka"
})
@SelectClasses(names = {"io.fleetwave.controlplane.projection.ParallelConsumersIT"})
@IncludeClassNamePatterns(".*IT")
public class IdentityAndProcessItsSuite {}
