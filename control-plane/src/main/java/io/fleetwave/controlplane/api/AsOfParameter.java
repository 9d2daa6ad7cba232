package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.readmodel.HistoryHorizon;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.QueryParam;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * The {@code asOf} query parameter of the fleet's reads: an RFC 3339 time with its offset ({@code
 * 2026-12-05T03:12:00Z}, {@code 2026-12-05T04:12:00+01:00}), not in the future and not before the
 * history the projection keeps. The answer names the moment it is for in the {@link #HEADER}
 * header, so the body keeps the shape of the current answer. Taken with {@code @BeanParam} by every
 * read that answers for a past moment.
 */
public class AsOfParameter {
  static final String NAME = "asOf";

  /** The response header that names the moment an as-of answer is for (RFC 3339, UTC). */
  static final String HEADER = "Fleetwave-As-Of";

  @Parameter(description = DESCRIPTION)
  @QueryParam(NAME)
  String asOf;

  /**
   * The read's answer for the moment asked for (empty: now), with the {@link #HEADER} header when
   * it is for a past one.
   *
   * @throws ProblemException as {@link #parse(String, HistoryHorizon)}
   */
  <T> Uni<RestResponse<T>> answer(
      HistoryHorizon horizon, Function<Optional<Instant>, Uni<T>> read) {
    Optional<Instant> moment = parse(asOf, horizon);
    return answer(read.apply(moment), moment);
  }

  /** The moment asked for now, against the history kept now; empty when absent. */
  static Optional<Instant> parse(String raw, HistoryHorizon horizon) {
    Instant now = Instant.now();
    return parse(raw, now, horizon.oldestServed(now));
  }

  /**
   * The moment asked for; empty when the parameter is absent (the current answer).
   *
   * @throws ProblemException 400 when it is not an RFC 3339 time or lies after {@code now}; 422
   *     when it lies before {@code oldest}, the oldest moment the history answers for
   */
  static Optional<Instant> parse(String raw, Instant now, Instant oldest) {
    if (raw == null) {
      return Optional.empty();
    }
    Instant moment;
    try {
      moment = OffsetDateTime.parse(raw, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw ProblemException.badRequest(
              "bad-as-of",
              "Invalid asOf",
              "query parameter 'asOf' must be an RFC 3339 time with an offset, e.g."
                  + " 2026-12-05T03:12:00Z or 2026-12-05T04:12:00+01:00 (a '+' in a URL is"
                  + " written %2B), got '"
                  + raw
                  + "'")
          .with("parameter", NAME);
    }
    if (moment.isAfter(now)) {
      throw ProblemException.badRequest(
              "bad-as-of",
              "Invalid asOf",
              "query parameter 'asOf' is in the future: " + moment + " is after now, " + now)
          .with("parameter", NAME);
    }
    if (moment.isBefore(oldest)) {
      throw new ProblemException(
              422,
              "as-of-before-history",
              "Before the history kept",
              "asOf "
                  + moment
                  + " is before the oldest moment the node history keeps, "
                  + oldest
                  + " (fleetwave.projection.history.retention)")
          .with("parameter", NAME)
          .with("oldest", oldest.toString());
    }
    return Optional.of(moment);
  }

  private static <T> Uni<RestResponse<T>> answer(Uni<T> answer, Optional<Instant> moment) {
    return answer.map(
        body ->
            moment
                .map(
                    m -> RestResponse.ResponseBuilder.ok(body).header(HEADER, m.toString()).build())
                .orElseGet(() -> RestResponse.ok(body)));
  }

  static final String DESCRIPTION =
      "the fleet as it was at this RFC 3339 time (e.g. 2026-12-05T03:12:00Z), rebuilt from the"
          + " node history; the answer names it in the Fleetwave-As-Of header. 400 when"
          + " unparsable or in the future, 422 when before the history kept (the problem's"
          + " 'oldest' names the oldest time answered)";
}
