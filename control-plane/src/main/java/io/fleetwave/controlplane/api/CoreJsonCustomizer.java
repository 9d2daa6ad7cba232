package io.fleetwave.controlplane.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/** Gives the application's ObjectMapper (REST, the engine, the store) the core's JSON form. */
@Singleton
public class CoreJsonCustomizer implements ObjectMapperCustomizer {
  @Override
  public void customize(ObjectMapper mapper) {
    mapper.registerModule(new CoreJson());
  }
}
