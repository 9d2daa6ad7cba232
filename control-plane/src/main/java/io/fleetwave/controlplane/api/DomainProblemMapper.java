package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.facts.FactNotRecordedException;
import io.fleetwave.controlplane.identity.EnrolmentRefusedException;
import io.fleetwave.controlplane.identity.EnrolmentThrottledException;
import io.fleetwave.controlplane.identity.InvalidEnrolmentException;
import io.fleetwave.controlplane.identity.KafkaCredentialUnavailableException;
import io.fleetwave.controlplane.identity.NodeNotRevokedException;
import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.security.SigningKeyMissingException;
import io.fleetwave.controlplane.spec.BrokerUnavailableException;
import io.fleetwave.controlplane.spec.InvalidSpecException;
import io.fleetwave.controlplane.spec.UnknownNodeException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The API's answer to each exception the domain throws: its status, problem type and title live
 * here, at the REST edge, and nowhere in the domain code.
 */
public class DomainProblemMapper {

  @ServerExceptionMapper
  public Response invalidSpec(InvalidSpecException e) {
    return ProblemMapper.render(
        ProblemException.invalid(
            e.getMessage(),
            e.errors().stream()
                .map(error -> new Problem.FieldError(error.field(), error.message()))
                .toList()));
  }

  @ServerExceptionMapper
  public Response unknownNode(UnknownNodeException e) {
    return ProblemMapper.render(ProblemException.unknownNode(e.node()));
  }

  /** As the database-unavailable problem: nothing to restart, the caller tries again shortly. */
  @ServerExceptionMapper
  public Response brokerUnavailable(BrokerUnavailableException e) {
    return tryAgainShortly("broker-unavailable", e.getMessage());
  }

  /** As a broker that is away: the fact was not recorded, so nothing changed; try again. */
  @ServerExceptionMapper
  public Response factNotRecorded(FactNotRecordedException e) {
    return unrecorded(e);
  }

  /** The fact-not-recorded answer, also for a request refused before it ran (its audit entry). */
  public static Response unrecorded(FactNotRecordedException e) {
    return tryAgainShortly("fact-not-recorded", e.getMessage());
  }

  /**
   * The node's own Kafka credential could not be made or read: nothing was enrolled, the agent
   * tries again.
   */
  @ServerExceptionMapper
  public Response kafkaCredentialUnavailable(KafkaCredentialUnavailableException e) {
    return tryAgainShortly("kafka-credential-unavailable", e.getMessage());
  }

  /** 503 with the database-unavailable problem's Retry-After. */
  private static Response tryAgainShortly(String type, String detail) {
    return retryAfter(
        problem(503, type, "Service unavailable", detail), DatabaseUnavailableMapper.RETRY_AFTER_S);
  }

  @ServerExceptionMapper
  public Response signingKeyMissing(SigningKeyMissingException e) {
    return problem(503, "signing-key-missing", "Service unavailable", e.getMessage());
  }

  /**
   * A node's bootstrap credential refused: 401, the reason without the credential. No challenge
   * scheme: the credential travels in the body, not in the Authorization header.
   */
  @ServerExceptionMapper
  public Response enrolmentRefused(EnrolmentRefusedException e) {
    return problem(401, "enrolment-refused", "Unauthorized", e.getMessage());
  }

  /** Too many enrolment attempts: 429, and when the next one may be made. */
  @ServerExceptionMapper
  public Response enrolmentThrottled(EnrolmentThrottledException e) {
    long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
    return retryAfter(
        problem(429, "too-many-enrolments", "Too Many Requests", e.getMessage()), seconds);
  }

  @ServerExceptionMapper
  public Response notRevoked(NodeNotRevokedException e) {
    return problem(409, "node-not-revoked", "Conflict", e.getMessage());
  }

  @ServerExceptionMapper
  public Response invalidEnrolment(InvalidEnrolmentException e) {
    return ProblemMapper.render(
        ProblemException.badRequest("invalid-enrolment", "Invalid enrolment", e.getMessage()));
  }

  private static Response problem(int status, String type, String title, String detail) {
    return ProblemMapper.render(new ProblemException(status, type, title, detail));
  }

  /** The problem with a Retry-After header: when the caller may try again, in seconds. */
  private static Response retryAfter(Response problem, long seconds) {
    return Response.fromResponse(problem).header("Retry-After", seconds).build();
  }
}
