package io.fleetwave.events.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.security.Rejection;
import io.fleetwave.events.spec.GatePolicy;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The wire names of the contract's enums. They are derived from the constants' names, so a renamed
 * constant would silently rename a value in signed, stored events: every one is written out here,
 * as the records already in the log carry it.
 */
class WireNamedTest {
  private static final ObjectMapper MAPPER = EventCodec.mapper();

  /** Every WireNamed enum of events/ with its wire names, in declaration order. */
  private static final Map<Class<?>, List<String>> PINNED = new LinkedHashMap<>();

  static {
    PINNED.put(
        DriverProvider.class, List.of("host-package", "driver-container", "os-image", "none"));
    PINNED.put(GpuHealth.class, List.of("healthy", "degraded", "failed"));
    PINNED.put(MigMode.class, List.of("enabled", "disabled", "unsupported"));
    PINNED.put(
        HostKind.class, List.of("ubuntu", "ubuntu-driver-container", "talos", "cos", "vgpu-host"));
    PINNED.put(
        StepKind.class,
        List.of(
            "hold-gate",
            "clear-vgpu-type",
            "destroy-instance",
            "disable-vfs",
            "set-mig-mode",
            "reset-gpu",
            "enable-vfs",
            "create-instance",
            "set-vgpu-type",
            "release-gate"));
    PINNED.put(GatePolicy.class, List.of("hold-until-applied", "open"));
    PINNED.put(Phase.class, List.of("forward", "rollback"));
    PINNED.put(
        Rejection.class,
        List.of(
            "unsigned",
            "no-key-id",
            "unknown-key",
            "forged",
            "wrong-stream",
            "wrong-node",
            "not-yet-valid",
            "expired",
            "replayed"));
  }

  static List<Class<?>> pinned() {
    return List.copyOf(PINNED.keySet());
  }

  /**
   * The pinned enums that are read from the wire, which say what their values are called for the
   * refusal (Rejection is only written, as a code).
   */
  static List<Class<?>> read() {
    return PINNED.keySet().stream()
        .filter(type -> type.isAnnotationPresent(WireNamed.Called.class))
        .toList();
  }

  @Test
  void everyWireNamedEnumOfTheContractIsPinned() {
    List<String> wireNamed =
        new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.fleetwave.events")
                .stream()
                .filter(c -> c.isEnum() && c.isAssignableTo(WireNamed.class))
                .map(JavaClass::getName)
                .sorted()
                .toList();

    assertThat(wireNamed)
        .containsExactlyElementsOf(PINNED.keySet().stream().map(Class::getName).sorted().toList());
  }

  @ParameterizedTest
  @MethodSource("pinned")
  void wireNamesAreThePinnedOnes(Class<?> type) {
    assertThat(Arrays.stream(type.getEnumConstants()).map(c -> ((WireNamed) c).wireName()))
        .containsExactlyElementsOf(PINNED.get(type));
  }

  @ParameterizedTest
  @MethodSource("pinned")
  void jacksonWritesEachConstantAsItsWireName(Class<?> type) throws Exception {
    for (Object constant : type.getEnumConstants()) {
      String wire = ((WireNamed) constant).wireName();

      assertThat(MAPPER.writeValueAsString(constant)).isEqualTo('"' + wire + '"');
    }
  }

  @ParameterizedTest
  @MethodSource("read")
  void jacksonReadsEachConstantByItsWireName(Class<?> type) throws Exception {
    for (Object constant : type.getEnumConstants()) {
      String wire = ((WireNamed) constant).wireName();

      assertThat(MAPPER.readValue('"' + wire + '"', type)).isSameAs(constant);
    }
  }

  @Test
  void allButTheRejectionCodesAreRead() {
    assertThat(read()).hasSize(PINNED.size() - 1).doesNotContain(Rejection.class);
  }

  @ParameterizedTest
  @MethodSource("read")
  void parseRefusesAnUnknownNameListingTheAllowedOnes(Class<?> type) {
    for (Object constant : type.getEnumConstants()) {
      assertThat(parse(type, ((WireNamed) constant).wireName())).isSameAs(constant);
    }
    // The constant's own name is not its wire name (FORWARD is forward).
    String javaName = ((Enum<?>) type.getEnumConstants()[0]).name();

    assertThatThrownBy(() -> parse(type, javaName))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown "
                + type.getAnnotation(WireNamed.Called.class).value()
                + " '"
                + javaName
                + "', expected one of "
                + String.join(", ", PINNED.get(type)));
  }

  @Test
  void anEnumThatSaysNothingOfItsValuesIsRefusedByItsName() {
    assertThatThrownBy(() -> WireNamed.parse(Legacy.class, "odd"))
        .hasMessage("unknown Legacy 'odd', expected one of plain, Odd_One");
  }

  /**
   * WireNamed.parse for an enum type known only at run time, as the parameterised tests have it.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object parse(Class<?> type, String value) {
    return WireNamed.parse((Class) type, value);
  }

  @Test
  void theMapperRefusesAnUnknownNameWithTheSameMessage() {
    assertThatThrownBy(() -> MAPPER.readValue("\"sick\"", GpuHealth.class))
        .isInstanceOf(ValueInstantiationException.class)
        .hasMessageContaining(
            "unknown GPU health 'sick', expected one of healthy, degraded, failed");
  }

  @Test
  void aNumberIsNotAConstant() {
    assertThatThrownBy(() -> MAPPER.readValue("1", GpuHealth.class))
        .isInstanceOf(JsonProcessingException.class);
  }

  /** A constant whose wire name does not follow the rule overrides wireName(); Jackson follows. */
  enum Legacy implements WireNamed {
    PLAIN,
    ODD {
      @Override
      public String wireName() {
        return "Odd_One";
      }
    }
  }

  @Test
  void anOverriddenWireNameIsWrittenReadAndListed() throws Exception {
    assertThat(MAPPER.writeValueAsString(List.of(Legacy.PLAIN, Legacy.ODD)))
        .isEqualTo("[\"plain\",\"Odd_One\"]");
    assertThat(WireNamed.parse(Legacy.class, "Odd_One")).isSameAs(Legacy.ODD);
    assertThatThrownBy(() -> WireNamed.parse(Legacy.class, "odd"))
        .hasMessageEndingWith("expected one of plain, Odd_One");
  }
}
