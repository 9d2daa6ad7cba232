package io.fleetwave.core;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.lang.conditions.ArchConditions.be;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.core.provenance.Aspect;
import io.fleetwave.core.provenance.ChangeCause;
import io.fleetwave.core.rollout.decide.NodeState;
import io.fleetwave.core.rollout.decide.OperatorRequest;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.events.fact.OperatorRequested;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.testfixtures.architecture.MainClasses;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The core's wire names: stored in columns (rollouts.state, rollout_nodes.state, node_changes),
 * written in the plan a RolloutCreated carries and taken by the API. WireNamed derives them from
 * the constants' names, so a renamed constant would rename a stored value: each is written out
 * here.
 */
class CoreWireNamesTest {
  private static final Map<Class<? extends WireNamed>, List<String>> PINNED =
      Map.of(
          FailureAction.class,
          List.of("pause", "rollback"),
          RolloutState.class,
          List.of(
              "created",
              "running",
              "paused",
              "rolling-back",
              "completed",
              "aborted",
              "rolled-back",
              "failed"),
          NodeState.class,
          List.of("pending", "in-flight", "succeeded", "failed", "skipped"),
          OperatorRequest.Action.class,
          List.of("pause", "resume", "abort", "rollback", "promote"),
          Aspect.class,
          List.of("driver", "mig-mode", "mig-layout", "vfs", "health"),
          ChangeCause.class,
          List.of("spec", "reboot", "outside"));

  @Test
  void everyWireNamedEnumOfTheCoreIsPinned() {
    classes()
        .that()
        .implement(WireNamed.class)
        .should(
            be(belongToAnyOf(PINNED.keySet().toArray(Class<?>[]::new)).as("pinned in this test")))
        .check(MainClasses.under("io.fleetwave.core"));
  }

  @Test
  void everyWireNameOfTheCoreIsThePinnedOne() {
    PINNED.forEach(
        (type, names) ->
            assertThat(Arrays.stream(type.getEnumConstants()).map(WireNamed::wireName))
                .as(type.getName())
                .containsExactlyElementsOf(names));
  }

  @Test
  void anOperatorRequestIsReadByItsWireNameOnly() {
    assertThat(WireNamed.parse(OperatorRequest.Action.class, "promote"))
        .isEqualTo(OperatorRequest.Action.PROMOTE);
    assertThatThrownBy(() -> WireNamed.parse(OperatorRequest.Action.class, "PROMOTE"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown operator request 'PROMOTE', expected one of pause, resume, abort, rollback,"
                + " promote");
  }

  @Test
  void everyOperatorActionCanBeRecordedAsAFact() {
    assertThat(OperatorRequested.ACTIONS)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(OperatorRequest.Action.values()).map(WireNamed::wireName).toList());
  }

  @Test
  void theInactiveStatesAreListedForSqlByWireName() {
    assertThat(RolloutState.INACTIVE_SQL)
        .isEqualTo("('completed', 'aborted', 'rolled-back', 'failed')");
  }
}
