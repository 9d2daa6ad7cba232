package io.fleetwave.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.util.Optional;
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

  @Test
  void aRefusalIsExplainedAsTheCredentialsOrTheRightsOfTheClient() {
    ExecutionException credentials =
        new ExecutionException("wrapped", new SecurityException("Authentication failed"));
    ExecutionException rights =
        new ExecutionException("wrapped", new IllegalStateException("Not authorized"));

    assertThat(explain(credentials))
        .contains("refused the agent's credentials (SecurityException: Authentication failed): a");
    assertThat(explain(rights))
        .contains("refused the agent access (IllegalStateException: Not authorized): b");
    assertThat(explain(new RuntimeException("other"))).isEmpty();
  }

  private static Optional<String> explain(Throwable failure) {
    return BrokerRefusal.explain(
        failure, SecurityException.class, IllegalStateException.class, "the agent", "a", "b");
  }
}
