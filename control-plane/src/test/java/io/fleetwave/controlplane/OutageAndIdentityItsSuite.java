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
 * profile and starts once per profile. The split is by package, sized from a CI run's class times
 * (this half: the outage tests 190 s, the production-start, Kafka and identity tests 161 s; the
 * other: 338 s); a new package lands in the other half by itself. {@code ForkSuitesTest} keeps the
 * two lists equal. {@code -Dit.test=SomeIT} still runs one class on its own.
 */
@Suite
@SelectPackages({
  "io.fleetwave.controlplane.fault",
  "io.fleetwave.controlplane.app",
  "io.fleetwave.controlplane.kafka",
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes"
})
@IncludeClassNamePatterns(".*IT")
public class OutageAndIdentityItsSuite {}
