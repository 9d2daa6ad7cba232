package io.fleetwave.events.json;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
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
 * Jackson reads it through {@link WireNamedDeserializer}, which this interface names for all of
 * them, and the codec, the API and the database readers call {@link #parse}: one reader, so a wrong
 * value is refused with the same words everywhere, in the words of the enum's {@link Called}.
 */
@JsonDeserialize(using = WireNamedDeserializer.class)
public interface WireNamed {
  /**
   * What the enum's values are called, for the message that refuses a wrong one: {@code GPU health}
   * gives {@code unknown GPU health 'x', expected one of healthy, degraded, failed}.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  @interface Called {
    String value();
  }

  /** The constant's name; {@link Enum#name()} implements it. */
  String name();

  /** The name on the wire. Renaming a constant renames it, so WireNamedTest pins every one. */
  @JsonValue
  default String wireName() {
    return WireNameTable.derived((Enum<?>) this);
  }

  /**
   * The constant of {@code type} with this wire name, refused in the words of the enum's {@link
   * Called} (its simple name where it has none).
   *
   * @throws IllegalArgumentException naming the value and the allowed ones: {@code unknown GPU
   *     health 'x', expected one of healthy, degraded, failed}
   */
  static <E extends Enum<E> & WireNamed> E parse(Class<E> type, String value) {
    return type.cast(WireNameTable.read(type, value));
  }

  /** Every wire name of {@code type}, in declaration order. */
  static <E extends Enum<E> & WireNamed> List<String> wireNames(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(WireNamed::wireName).toList();
  }
}
