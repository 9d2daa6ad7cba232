package io.fleetwave.controlplane;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The fault tests (the system tier, SystemTierIT, which is also the chaos run) and the packaged
 * control plane's production starts (app: DatabaseTlsIT, JsonLogsIT, ProductionStartIT), one of the
 * control plane's three suites of integration tests, each run by failsafe as one JUnit launch in a
 * fork of its own ({@code it.forks.outages}, 3); {@link IdentityAndProcessItsSuite} and {@link
 * ApiAndRolloutItsSuite} run every other IT in the other two forks.
 *
 * <p>Why suites: with more than one fork, surefire and failsafe hand a fork its classes one JUnit
 * launch at a time, and Quarkus stops its application at the end of every launch, so each {@code
 * QuarkusTest} class started Quarkus (and the embedded Kafka and PostgreSQL of {@link
 * io.fleetwave.controlplane.fixtures.EmbeddedServicesResource}) again: 26 starts for 25 classes,
 * 314 s of starting (quarkusio/quarkus#43979). Inside one launch Quarkus orders the classes by test
 * profile and starts once per profile.
 *
 * <p>Why this split: the system tier holds its outages (60 s, 65 s and 30 s; docs/reliability.md)
 * and spends those minutes waiting, so it gets a fork of its own (no Quarkus start) and the other
 * two forks work meanwhile; in a fork with other tests that waiting would be on the suite's
 * critical path. The split is by package, so a new IT class is always in exactly one suite; a new
 * package lands in {@link ApiAndRolloutItsSuite} by itself; {@code ForkSuitesTest} keeps the lists
 * equal. {@code -Dit.test=SomeIT} still runs one class on its own.
 *
 * <p>The classes named below are the catch-all's tests that start no Quarkus (a database or a
 * packaged control plane of their own): they run here, beside the outages being waited out, rather
 * than at the end of the catch-all's fork, the longest of the three (it excludes them by name;
 * {@code ForkSuitesTest} keeps the two lists equal and this fork free of Quarkus tests). The app
 * package's tests start no Quarkus either (each runs the packaged control plane as a process): in
 * {@link IdentityAndProcessItsSuite}'s fork, which builds six Quarkus applications first, they had
 * kept that fork running two minutes after the other two.
 */
@Suite
@SelectPackages({"io.fleetwave.controlplane.fault", "io.fleetwave.controlplane.app"})
@SelectClasses(
    names = {
      "io.fleetwave.controlplane.api.LabelSelectorSqlAgreementIT",
      "io.fleetwave.controlplane.database.PipelinedTransactionIT",
      "io.fleetwave.controlplane.projection.HistoryGrowthIT",
      "io.fleetwave.controlplane.projection.HistoryPartitionsIT",
      "io.fleetwave.controlplane.projection.InventoryWriteIT",
      "io.fleetwave.controlplane.readmodel.AsOfStatesIT",
      "io.fleetwave.controlplane.readmodel.ConvergenceSqlAgreementIT",
      "io.fleetwave.controlplane.rollout.engine.FleetObserverIT",
      "io.fleetwave.controlplane.rollout.store.RolloutProgressReaderIT",
      "io.fleetwave.controlplane.security.DashboardSignInIT"
    })
@IncludeClassNamePatterns(".*IT")
public class OutageItsSuite {}
