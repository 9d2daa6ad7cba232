package io.fleetwave.controlplane;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The control plane's integration tests that start no Quarkus: the packaged control plane's
 * production starts (app: DatabaseTlsIT, ProductionStartIT) and the tests named below, which bring
 * a database or a packaged control plane of their own. One of the control plane's three suites of
 * integration tests, each run by failsafe as one JUnit launch in a fork of its own ({@code
 * it.forks.outages}, 3); {@link IdentityAndProcessItsSuite} and {@link ApiAndRolloutItsSuite} run
 * every other IT in the other two forks. The system tier, which ran here until it got a module of
 * its own (system-tier/, built beside the demo by the parallel build), is not a suite of this
 * module.
 *
 * <p>Why suites: with more than one fork, surefire and failsafe hand a fork its classes one JUnit
 * launch at a time, and Quarkus stops its application at the end of every launch, so each {@code
 * QuarkusTest} class started Quarkus (and the embedded Kafka and PostgreSQL of {@link
 * io.fleetwave.controlplane.fixtures.EmbeddedServicesResource}) again: 26 starts for 25 classes,
 * 314 s of starting (quarkusio/quarkus#43979). Inside one launch Quarkus orders the classes by test
 * profile and starts once per profile.
 *
 * <p>Why this split: the two other forks build and start Quarkus applications (CPU-bound for their
 * first minutes); this one starts none, so it gives them the cores while its tests wait on child
 * processes and databases. The split is by package, so a new IT class is always in exactly one
 * suite; a new package lands in {@link ApiAndRolloutItsSuite} by itself; {@code ForkSuitesTest}
 * keeps the lists equal and this fork free of Quarkus tests. {@code -Dit.test=SomeIT} still runs
 * one class on its own. The named classes are the catch-all's tests that start no Quarkus: they run
 * here rather than at the end of the catch-all's fork (it excludes them by name), and
 * NodeKafkaQuotaIT, which {@link IdentityAndProcessItsSuite} excludes by name: that fork ended
 * about two minutes after this one with it (2026-12-06), the cores half idle. The app package's
 * tests run last ({@code RunsLast}): in {@link IdentityAndProcessItsSuite}'s fork, which builds six
 * Quarkus applications first, they had kept that fork running two minutes after the other two.
 */
@Suite
@SelectPackages("io.fleetwave.controlplane.app")
@SelectClasses(
    names = {
      "io.fleetwave.controlplane.api.LabelSelectorSqlAgreementIT",
      "io.fleetwave.controlplane.database.PipelinedTransactionIT",
      "io.fleetwave.controlplane.identity.NodeKafkaQuotaIT",
      "io.fleetwave.controlplane.projection.HistoryGrowthIT",
      "io.fleetwave.controlplane.projection.HistoryPartitionsIT",
      "io.fleetwave.controlplane.projection.InventoryWriteIT",
      "io.fleetwave.controlplane.projection.MigrationCarryOverIT",
      "io.fleetwave.controlplane.readmodel.AsOfStatesIT",
      "io.fleetwave.controlplane.readmodel.ConvergenceSqlAgreementIT",
      "io.fleetwave.controlplane.rollout.engine.FleetObserverIT",
      "io.fleetwave.controlplane.rollout.store.RolloutProgressReaderIT",
      "io.fleetwave.controlplane.security.DashboardSignInIT"
    })
@IncludeClassNamePatterns(".*IT")
public class NoQuarkusItsSuite {}
