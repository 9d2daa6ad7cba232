package io.fleetwave.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.security.SigningKeyMissingException;
import io.fleetwave.controlplane.spec.BrokerUnavailableException;
import io.fleetwave.controlplane.spec.FieldError;
import io.fleetwave.controlplane.spec.InvalidSpecException;
import io.fleetwave.controlplane.spec.UnknownNodeException;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each domain exception keeps the status and problem body the API answered before it existed. */
class DomainProblemMapperTest {
  private final DomainProblemMapper mapper = new DomainProblemMapper();

  private static Problem body(Response response) {
    assertThat(response.getMediaType().toString()).isEqualTo(Problem.MEDIA_TYPE);
    return (Problem) response.getEntity();
  }

  @Test
  void anInvalidSpecIs422WithEveryFieldError() {
    Response response =
        mapper.invalidSpec(
            new InvalidSpecException(
                "the spec for node 'n' has 1 problem(s); nothing was published",
                List.of(new FieldError("gpus[0].instances", "GPU 0 has no MIG"))));

    Problem problem = body(response);
    assertThat(problem.status()).isEqualTo(422);
    assertThat(problem.type()).isEqualTo(URI.create("https://fleetwave.io/problems/invalid-spec"));
    assertThat(problem.title()).isEqualTo("Invalid request");
    assertThat(problem.detail()).startsWith("the spec for node 'n'");
    assertThat(problem.errors())
        .containsExactly(new Problem.FieldError("gpus[0].instances", "GPU 0 has no MIG"));
  }

  @Test
  void anUnknownNodeIs404NamingIt() {
    Problem problem = body(mapper.unknownNode(new UnknownNodeException("gpu-9")));
    assertThat(problem.status()).isEqualTo(404);
    assertThat(problem.type()).isEqualTo(URI.create("https://fleetwave.io/problems/unknown-node"));
    assertThat(problem.detail()).isEqualTo("no node named 'gpu-9'");
  }

  @Test
  void aBrokerThatDoesNotAcknowledgeIs503() {
    Problem problem =
        body(
            mapper.brokerUnavailable(
                new BrokerUnavailableException("Kafka did not acknowledge ...", null)));
    assertThat(problem.status()).isEqualTo(503);
    assertThat(problem.type())
        .isEqualTo(URI.create("https://fleetwave.io/problems/broker-unavailable"));
    assertThat(problem.title()).isEqualTo("Service unavailable");
    assertThat(problem.detail()).isEqualTo("Kafka did not acknowledge ...");
  }

  @Test
  void aBrokerThatIsAwayIsToBeAskedAgainShortly() {
    assertThat(
            mapper
                .brokerUnavailable(new BrokerUnavailableException("Kafka unreachable since", null))
                .getHeaderString("Retry-After"))
        .isEqualTo("5");
  }

  @Test
  void aMissingSigningKeyIs503() {
    Problem problem =
        body(mapper.signingKeyMissing(new SigningKeyMissingException("command signing key ...")));
    assertThat(problem.status()).isEqualTo(503);
    assertThat(problem.type())
        .isEqualTo(URI.create("https://fleetwave.io/problems/signing-key-missing"));
    assertThat(problem.title()).isEqualTo("Service unavailable");
  }
}
