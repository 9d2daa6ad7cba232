package io.fleetwave.testsupport.services;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** Runs test classes through the JUnit launcher and keeps what happened to each test and class. */
final class Run implements TestExecutionListener {
  final List<String> succeeded = new ArrayList<>();
  final List<Throwable> failures = new ArrayList<>();
  final List<String> skipped = new ArrayList<>();

  static Run of(Class<?>... classes) {
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (Class<?> c : classes) {
      request.selectors(selectClass(c));
    }
    LauncherDiscoveryRequest built = request.build();
    Run run = new Run();
    LauncherFactory.create().execute(built, run);
    return run;
  }

  @Override
  public void executionSkipped(TestIdentifier test, String reason) {
    skipped.add(reason);
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    switch (result.getStatus()) {
      case SUCCESSFUL -> {
        if (test.isTest()) {
          succeeded.add(test.getDisplayName());
        }
      }
      case ABORTED ->
          skipped.add(result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
      case FAILED -> failures.add(result.getThrowable().orElseThrow());
    }
  }
}
