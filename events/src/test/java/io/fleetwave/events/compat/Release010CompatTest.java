package io.fleetwave.events.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.ReceivedEvent;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.security.NodeEventVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upgrade compatibility (docs/release.md, step 3): the records release 0.1.0 wrote, kept in
 * src/test/resources/compat/0.1.0/ exactly as written, go through today's decoders and come out as
 * the values 0.1.0 meant ({@link Release010Records}), field by field; node events still carry a
 * signature today's verifier accepts. A change that makes today's code misread a 0.1.0 record (a
 * renamed or retyped field, a dropped type version, an enum value renamed) fails here.
 */
class Release010CompatTest {
  private static final String DIR = "/compat/" + Release010Records.RELEASE + "/";

  /**
   * Event types added since 0.1.0: no 0.1.0 record of them can exist. Each gets a fixture in the
   * next release's directory (docs/release.md); list it here until then.
   */
  private static final Set<String> NEW_SINCE_RELEASE =
      Set.of(
          "io.fleetwave.fact.node-key-enrolled",
          "io.fleetwave.fact.node-revoked",
          "io.fleetwave.fact.node-readmitted",
          "io.fleetwave.fact.join-token-created",
          "io.fleetwave.fact.mig-configs-imported",
          "io.fleetwave.fact.audit-recorded",
          "io.fleetwave.fact.desired-spec-set",
          "io.fleetwave.fact.command-generation-used",
          "io.fleetwave.fact.operator-requested",
          "io.fleetwave.fact.operator-request-handled",
          "io.fleetwave.rollout.node-skipped");

  static Stream<Release010Records.Sample> samples() {
    return Release010Records.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void todaysDecoderReadsTheRecordAsRelease010MeantIt(Release010Records.Sample sample)
      throws Exception {
    JsonNode record = fixture(sample.file());
    assertThat(record.path("topic").asText()).isEqualTo(sample.topic());
    assertThat(record.path("key").asText()).isEqualTo(sample.key());
    byte[] value = record.path("value").asText().getBytes(StandardCharsets.UTF_8);
    Envelope<FleetEvent> expected = sample.envelope();

    Envelope<FleetEvent> decoded = EventCodec.decode(value);
    assertThat(decoded)
        .as(sample.file())
        .usingRecursiveComparison()
        .withStrictTypeChecking()
        .isEqualTo(expected);
    assertThat(decoded).as(sample.file()).isEqualTo(expected);

    // The projection's path (the data's text kept as received) reads it the same way.
    ReceivedEvent received = EventCodec.decodeReceived(value);
    assertThat(received.envelope())
        .as(sample.file())
        .usingRecursiveComparison()
        .withStrictTypeChecking()
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void nodeEventsKeepAVerifiableSignatureInTheirHeaders(Release010Records.Sample sample)
      throws Exception {
    JsonNode headers = fixture(sample.file()).path("headers");
    if (!sample.signed()) {
      assertThat(headers.size()).as(sample.file() + ": rollout events carry no headers").isZero();
      return;
    }
    NodeEventSigner key = NodeEventSigner.fromPkcs8(resource(CompatFixtures.KEY_FILE));
    EnrolledKey enrolled = EnrolledKey.of(sample.key(), key.publicKeyPem(), false);
    byte[] value = fixture(sample.file()).path("value").asText().getBytes(StandardCharsets.UTF_8);

    assertThat(
            NodeEventVerifier.verify(
                sample.key(),
                value,
                headers.path(NodeEventSigner.KEY_ID_HEADER).asText(null),
                headers.path(NodeEventSigner.SIGNATURE_HEADER).asText(null),
                id -> id.equals(key.keyId()) ? enrolled : null))
        .as(sample.file())
        .isEmpty();
  }

  @Test
  void everyNodeAndRolloutEventTypeHasARelease010Record() {
    Set<String> recorded = new TreeSet<>();
    for (Release010Records.Sample sample : Release010Records.all()) {
      recorded.add(readType(fixture(sample.file()).path("value").asText()));
    }
    List<String> missing =
        EventTypes.all().stream()
            .filter(type -> !type.name().startsWith("io.fleetwave.command."))
            .filter(type -> !NEW_SINCE_RELEASE.contains(type.name()))
            .map(EventType::wireType)
            .filter(type -> !recorded.contains(type))
            .toList();
    assertThat(missing)
        .as(
            "event types without a record of release "
                + Release010Records.RELEASE
                + " in events/src/test/resources"
                + DIR
                + ". A type added since "
                + Release010Records.RELEASE
                + ": list it in NEW_SINCE_RELEASE; the next release's fixtures (docs/release.md,"
                + " CompatFixtures) will hold it. A type that existed in "
                + Release010Records.RELEASE
                + " must have a record there")
        .isEmpty();
  }

  private static String readType(String value) {
    try {
      return EventCodec.mapper().readTree(value).path("type").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode fixture(String file) {
    try {
      return CompatFixtures.JSON.readTree(resource(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String resource(String file) {
    try (InputStream in = Release010CompatTest.class.getResourceAsStream(DIR + file)) {
      if (in == null) {
        throw new AssertionError(
            "no fixture "
                + DIR
                + file
                + ": a record of release "
                + Release010Records.RELEASE
                + " is missing (CompatFixtures writes a release's records when it is cut)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
