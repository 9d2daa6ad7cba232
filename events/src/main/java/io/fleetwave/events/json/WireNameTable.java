package io.fleetwave.events.json;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Each {@link WireNamed} enum's names, worked out once per enum: wire names are written and read
 * for every GPU of every inventory the projection decodes, so neither the lower-casing nor the
 * search through the constants is repeated per value.
 */
final class WireNameTable {
  /** The derived wire name of each constant. */
  private static final ClassValue<Map<Object, String>> DERIVED =
      new ClassValue<>() {
        @Override
        protected Map<Object, String> computeValue(Class<?> type) {
          Map<Object, String> names = new HashMap<>();
          for (Object constant : type.getEnumConstants()) {
            names.put(
                constant, ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'));
          }
          return Map.copyOf(names);
        }
      };

  /** Each constant by its wire name, overrides of {@link WireNamed#wireName()} included. */
  private static final ClassValue<Map<String, Object>> BY_WIRE_NAME =
      new ClassValue<>() {
        @Override
        protected Map<String, Object> computeValue(Class<?> type) {
          Map<String, Object> byName = new HashMap<>();
          for (Object constant : type.getEnumConstants()) {
            byName.put(((WireNamed) constant).wireName(), constant);
          }
          return Map.copyOf(byName);
        }
      };

  private WireNameTable() {}

  static String derived(Enum<?> constant) {
    return DERIVED.get(constant.getDeclaringClass()).get(constant);
  }

  /** The constant of {@code type} with this wire name; null when there is none. */
  static Object constant(Class<?> type, String wireName) {
    return wireName == null ? null : BY_WIRE_NAME.get(type).get(wireName);
  }

  /**
   * The constant of WireNamed enum {@code type} with this wire name.
   *
   * @throws IllegalArgumentException naming the value and the allowed ones in the words of the
   *     enum's {@link WireNamed.Called} (its simple name where it has none): {@code unknown GPU
   *     health 'x', expected one of healthy, degraded, failed}
   */
  static Object read(Class<?> type, String value) {
    Object constant = constant(type, value);
    if (constant != null) {
      return constant;
    }
    WireNamed.Called called = type.getAnnotation(WireNamed.Called.class);
    String what = called == null ? type.getSimpleName() : called.value();
    List<String> allowed =
        Arrays.stream(type.getEnumConstants()).map(c -> ((WireNamed) c).wireName()).toList();
    throw new IllegalArgumentException(
        "unknown " + what + " '" + value + "', expected one of " + String.join(", ", allowed));
  }
}
