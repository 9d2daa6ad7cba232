package io.fleetwave.demo;

import io.fleetwave.controlplane.fixtures.EmbeddedServicesResource;
import io.quarkus.test.common.QuarkusTestResource;

/**
 * The control plane's real broker and database resource for every {@code @QuarkusTest} of the demo
 * module too: a global test resource is found only in the module's own test classes.
 */
@QuarkusTestResource(EmbeddedServicesResource.class)
public final class DemoTestServices {
  private DemoTestServices() {}
}
