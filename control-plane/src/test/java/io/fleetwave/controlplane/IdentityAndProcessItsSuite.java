package io.fleetwave.controlplane;

import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The identity and Kubernetes-label tests (three applications: Quarkus' default test profile,
 * EnrolmentLimitsIT's low limits, and {@link io.fleetwave.controlplane.fixtures.KubernetesInstall}
 * for the Kubernetes-facing features and ControlFactsIT, last) and the tests that start a broker of
 * their own (kafka), as one JUnit launch in one of the control plane's three failsafe forks; see
 * {@link NoQuarkusItsSuite} for why suites and why this split. The tests of the packaged control
 * plane's production starts (app) run in {@link NoQuarkusItsSuite}'s fork: this fork started six
 * applications before its first test then (Quarkus builds every profile of a launch at discovery),
 * so it had ended two minutes after the other two.
 */
@Suite
@SelectPackages({
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes",
  "io.fleetwave.controlplane.kafka"
})
// Starts no Quarkus and mostly waits on a throttled broker: it runs last in NoQuarkusItsSuite's
// fork, which ended about two minutes before this one.
@ExcludeClassNamePatterns("io\\.fleetwave\\.controlplane\\.identity\\.NodeKafkaQuotaIT")
@IncludeClassNamePatterns(".*IT")
public class IdentityAndProcessItsSuite {}
