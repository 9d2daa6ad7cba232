package io.fleetwave.events.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.types.Time;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The codec's own timestamp form read directly gives what the CloudEvents SDK's parser gives. */
class UtcTimestampsProperties {
  private static final String CHARACTERS = "0123456789:-TZ.+ 6";

  @Property(tries = 2000)
  void readsEveryTimeTheCodecWritesAsTheSdkDoes(@ForAll("instants") Instant instant) {
    String text = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC));

    assertThat(UtcTimestamps.parseOrNull(text))
        .isEqualTo(instant)
        .isEqualTo(Time.parseTime("time", text).toInstant());
  }

  /** An altered time: declined, or the instant the SDK reads (never one the SDK refuses). */
  @Property(tries = 5000)
  void answersOnlyWhereTheSdkAgrees(
      @ForAll("instants") Instant instant,
      @ForAll @IntRange(max = 40) int position,
      @ForAll @IntRange(max = 17) int character,
      @ForAll @IntRange(max = 2) int kind) {
    StringBuilder text =
        new StringBuilder(
            DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC)));
    int at = position % text.length();
    char c = CHARACTERS.charAt(character);
    switch (kind) {
      case 0 -> text.setCharAt(at, c);
      case 1 -> text.insert(at, c);
      default -> text.deleteCharAt(at);
    }

    Instant ours = UtcTimestamps.parseOrNull(text.toString());

    if (ours != null) {
      assertThat(ours).isEqualTo(Time.parseTime("time", text.toString()).toInstant());
    }
  }

  @Property(tries = 200)
  void declinesOffsetsAndLeapSeconds(@ForAll("instants") Instant instant) {
    String utc = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC));

    assertThat(UtcTimestamps.parseOrNull(utc.replace("Z", "+00:00"))).isNull();
    assertThat(UtcTimestamps.parseOrNull(utc.substring(0, 17) + "60Z")).isNull();
  }

  @Provide
  Arbitrary<Instant> instants() {
    Arbitrary<Long> seconds =
        Arbitraries.longs()
            .between(
                Instant.parse("0001-01-01T00:00:00Z").getEpochSecond(),
                Instant.parse("9999-12-31T23:59:59Z").getEpochSecond());
    Arbitrary<Integer> nanos =
        Arbitraries.oneOf(
            Arbitraries.just(0),
            Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
            Arbitraries.integers().between(0, 999_999).map(us -> us * 1_000),
            Arbitraries.integers().between(0, 999_999_999));
    return seconds.flatMap(s -> nanos.map(n -> Instant.ofEpochSecond(s, n)));
  }
}
