package io.fleetwave.controlplane;

import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.ExcludePackages;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * Every control-plane integration test that {@link NoQuarkusItsSuite} and {@link
 * IdentityAndProcessItsSuite} do not run (the API, projection, rollout, read-model, spec and
 * security tests: Quarkus' default test profile, started once here, and {@link
 * io.fleetwave.controlplane.fixtures.FourProjectionConsumers} for AsOfReadsIT and
 * ParallelConsumersIT), as one JUnit launch in the third failsafe fork; see {@link
 * NoQuarkusItsSuite} for why. The excluded packages are exactly the other suites', the excluded
 * classes those that {@link NoQuarkusItsSuite} names.
 */
@Suite
@SelectPackages("io.fleetwave.controlplane")
@ExcludePackages({
  "io.fleetwave.controlplane.identity",
  "io.fleetwave.controlplane.kubernetes",
  "io.fleetwave.controlplane.app",
  "io.fleetwave.controlplane.kafka"
})
@ExcludeClassNamePatterns({
  "io\\.fleetwave\\.controlplane\\.api\\.LabelSelectorSqlAgreementIT",
  "io\\.fleetwave\\.controlplane\\.database\\.PipelinedTransactionIT",
  "io\\.fleetwave\\.controlplane\\.projection\\.HistoryGrowthIT",
  "io\\.fleetwave\\.controlplane\\.projection\\.HistoryPartitionsIT",
  "io\\.fleetwave\\.controlplane\\.projection\\.InventoryWriteIT",
  "io\\.fleetwave\\.controlplane\\.projection\\.MigrationCarryOverIT",
  "io\\.fleetwave\\.controlplane\\.readmodel\\.AsOfStatesIT",
  "io\\.fleetwave\\.controlplane\\.readmodel\\.ConvergenceSqlAgreementIT",
  "io\\.fleetwave\\.controlplane\\.rollout\\.engine\\.FleetObserverIT",
  "io\\.fleetwave\\.controlplane\\.rollout\\.store\\.RolloutProgressReaderIT",
  "io\\.fleetwave\\.controlplane\\.security\\.DashboardSignInIT"
})
@IncludeClassNamePatterns(".*IT")
public class ApiAndRolloutItsSuite {}
