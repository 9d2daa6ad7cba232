package io.fleetwave.controlplane.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.events.codec.EventCodec;

/**
 * The JSON form of the pure core's types, kept at the edge: the core (rollout-core) imports no
 * Jackson, so what its enums and its driver artifact look like in the API and in the plan a
 * RolloutCreated carries is said here, as mix-ins (the enums' wire names come from the contract's
 * WireNamed, which they implement). Registered on the application's ObjectMapper ({@link
 * CoreJsonCustomizer}); the JSON is the one the annotations on the types made before.
 */
public final class CoreJson extends SimpleModule {
  private static final long serialVersionUID = 1L;

  public CoreJson() {
    super("fleetwave-core");
    setMixInAnnotation(FailureAction.class, FailureActionJson.class);
    setMixInAnnotation(RolloutState.class, RolloutStateJson.class);
    setMixInAnnotation(DriverArtifact.class, DriverArtifactJson.class);
  }

  /** The events codec's mapper with this module: for tests and tools outside the application. */
  public static ObjectMapper mapper() {
    return EventCodec.mapper().copy().registerModule(new CoreJson());
  }

  /**
   * Read through {@link FailureAction#fromWireName}, so a wrong value gets the message naming the
   * allowed ones; written as its wire name by {@link io.fleetwave.events.json.WireNamed}.
   */
  abstract static class FailureActionJson {
    @JsonCreator
    static FailureAction fromWireName(String name) {
      return FailureAction.fromWireName(name);
    }
  }

  /** As {@link FailureActionJson}: {@code "created"}, {@code "running"}, ... */
  abstract static class RolloutStateJson {
    @JsonCreator
    static RolloutState fromWireName(String name) {
      return RolloutState.fromWireName(name);
    }
  }

  /** Each artifact with its {@code kind} and a one-line {@code description}. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = DriverArtifact.ContainerImage.class, name = "container-image"),
    @JsonSubTypes.Type(value = DriverArtifact.HostPackage.class, name = "host-package"),
    @JsonSubTypes.Type(value = DriverArtifact.OsImage.class, name = "os-image")
  })
  abstract static class DriverArtifactJson {
    @JsonProperty("description")
    abstract String describe();
  }
}
