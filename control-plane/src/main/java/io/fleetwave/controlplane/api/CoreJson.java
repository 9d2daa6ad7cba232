package io.fleetwave.controlplane.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.events.codec.EventCodec;

/**
 * The JSON form of the pure core's types, kept at the edge: the core (rollout-core) imports no
 * Jackson, so what its driver artifact looks like in the API and in the plan a RolloutCreated
 * carries is said here, as a mix-in (its enums are written and read by their wire names through the
 * contract's WireNamed, which they implement). Registered on the application's ObjectMapper ({@link
 * CoreJsonCustomizer}); the JSON is the one the annotations on the types made before.
 */
public final class CoreJson extends SimpleModule {
  private static final long serialVersionUID = 1L;

  public CoreJson() {
    super("fleetwave-core");
    setMixInAnnotation(DriverArtifact.class, DriverArtifactJson.class);
  }

  /** The events codec's mapper with this module: for tests and tools outside the application. */
  public static ObjectMapper mapper() {
    return EventCodec.mapper().copy().registerModule(new CoreJson());
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
