package io.fleetwave.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The bound on NVML calls, with a call that blocks on a latch as a wedged driver does. */
class NvmlCallsTest {
  private final NvmlCalls calls = new NvmlCalls(Duration.ofMillis(300));

  @Test
  void aCallPastItsBoundFailsByNameAndLaterCallsFailFastUntilItReturns() {
    CountDownLatch driverAnswers = new CountDownLatch(1);
    assertThatThrownBy(
            () ->
                calls.run(
                    () -> {
                      calls.entering("nvmlDeviceGetMigMode");
                      awaitUninterruptibly(driverAnswers);
                      return 1;
                    }))
        .isInstanceOf(NvmlHungException.class)
        .hasMessage(
            "nvmlDeviceGetMigMode did not return within 300 ms; no NVML call is made until it"
                + " returns");

    AtomicBoolean entered = new AtomicBoolean();
    assertThatThrownBy(
            () ->
                calls.run(
                    () -> {
                      entered.set(true);
                      return 2;
                    }))
        .isInstanceOf(NvmlHungException.class)
        .hasMessageStartingWith("NVML is stuck: nvmlDeviceGetMigMode has not returned for ")
        .hasMessageEndingWith("(bound 300 ms); no NVML call is made until it returns");
    assertThat(entered).as("a call made while another is stuck").isFalse();
    assertThat(calls.stuck()).isTrue();

    driverAnswers.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> !calls.stuck());
    assertThat(calls.run(() -> 3)).isEqualTo(3);
  }

  @Test
  void whatTheCallThrowsReachesTheCallerUnchanged() {
    NvmlException refused =
        new NvmlException("nvmlDeviceSetMigMode", 19, "In use by another client");
    assertThatThrownBy(
            () ->
                calls.run(
                    () -> {
                      throw refused;
                    }))
        .isSameAs(refused);
    assertThat(calls.stuck()).isFalse();
  }

  @Test
  void nestedCallsOnNvmlsThreadRunInPlace() {
    assertThat(calls.run(() -> calls.run(() -> "error text"))).isEqualTo("error text");
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean done = false;
    while (!done) {
      try {
        done = latch.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        // A native call is not interruptible either.
      }
    }
  }
}
