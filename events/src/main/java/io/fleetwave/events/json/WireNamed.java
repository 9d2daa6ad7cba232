package io.fleetwave.events.json;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;

/**
 * An enum whose constants travel by name: in events, API bodies, query parameters and database
 * columns. The wire name is the constant's name in lower case with {@code -} for {@code _} ({@code
 * IN_FLIGHT} is {@code in-flight}), so it is derived here once instead of written beside every
 * constant; a constant that needs another name overrides {@link #wireName()}.
 *
 * <p>Jackson writes such an enum as its wire name: {@link JsonValue} on this method is inherited by
 * every implementing enum (rollout-core's enums included, which import no Jackson themselves).
 * Reading goes through each enum's {@code fromWireName}, which calls {@link #parse}, so a wrong
 * value is refused with the same words in the codec, the API and the database readers.
 */
public interface WireNamed {
  /** The constant's name; {@link Enum#name()} implements it. */
  String name();

  /** The name on the wire. Renaming a constant renames it, so WireNamedTest pins every one. */
  @JsonValue
  default String wireName() {
    return WireNameTable.derived((Enum<?>) this);
  }

  /**
   * The constant of {@code type} with this wire name.
   *
   * @param what what the value is, for the message ("GPU health")
   * @throws IllegalArgumentException naming the value and the allowed ones: {@code unknown GPU
   *     health 'x', expected one of healthy, degraded, failed}
   */
  static <E extends Enum<E> & WireNamed> E parse(Class<E> type, String value, String what) {
    Object constant = WireNameTable.constant(type, value);
    if (constant != null) {
      return type.cast(constant);
    }
    throw new IllegalArgumentException(
        "unknown "
            + what
            + " '"
            + value
            + "', expected one of "
            + String.join(", ", wireNames(type)));
  }

  /** Every wire name of {@code type}, in declaration order. */
  static <E extends Enum<E> & WireNamed> List<String> wireNames(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(WireNamed::wireName).toList();
  }
}
