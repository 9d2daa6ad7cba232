package io.fleetwave.controlplane;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * One of the control plane's two halves of integration tests, run by failsafe (it.forks=2) as one
 * JUnit launch in one fork; {@link ApiAndRolloutItsSuite} runs every other IT in the other fork.
 *
 * <p>Why suites: with more than one fork, surefire and failsafe hand a fork its classes one JUnit
 * launch at a time, and Quarkus stops its application at the end of every launch, so each
 * {@code @QuarkusTest} class started Quarkus (and the embedded Kafka and PostgreSQL of {@link
 * io.fleetwave.controlplane.fixtures.EmbeddedServicesResource}) again: 26 starts for 25 classes,
 * 314 s of starting (quarkusio/quarkus#43979). Inside one launch Quarkus orders the classes by test
 * profile and starts once per profile (5 starts in all instead of 26). The split is by package,
 * sized from a CI run's class times less the restarts it no longer pays: this half holds the two 60
 * s outage tests (190 s) and the test-profile classes of identity and kubernetes (71 s, three
 * profiles); the other half the default-profile classes and every other package. A new package
 * lands in the other half by itself; {@code ForkSuitesTest} keeps the two lists equal. {@code
 * -Dit.test=SomeIT} still runs one class on its own.
 */
@Suite
@SelectPackages({
  "io.fleetwave.controlplane.fault",
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes"
})
@IncludeClassNamePatterns(".*IT")
public class OutageAndIdentityItsSuite {}
