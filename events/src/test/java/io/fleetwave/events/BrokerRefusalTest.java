package io.fleetwave.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class BrokerRefusalTest {
  @Test
  void theOutermostCauseOfARefusalTypeIsFound() {
    SecurityException inner = new SecurityException("inner");
    IllegalStateException outer = new IllegalStateException("outer", inner);
    ExecutionException failure = new ExecutionException("wrapped", outer);

    assertThat(BrokerRefusal.find(failure, SecurityException.class, IllegalStateException.class))
        .containsSame(outer);
    assertThat(BrokerRefusal.find(failure, SecurityException.class)).containsSame(inner);
  }

  @Test
  void aFailureWithoutARefusalAmongItsCausesIsNone() {
    ExecutionException failure =
        new ExecutionException("wrapped", new IllegalStateException("not a refusal"));
    assertThat(BrokerRefusal.find(failure, UncheckedIOException.class, SecurityException.class))
        .isEmpty();
    assertThat(BrokerRefusal.find(null, SecurityException.class)).isEmpty();
  }

  @Test
  void kafkasWordsAreItsExceptionAndMessage() {
    assertThat(BrokerRefusal.kafkas(new SecurityException("Authentication failed")))
        .isEqualTo("SecurityException: Authentication failed");
  }
}
