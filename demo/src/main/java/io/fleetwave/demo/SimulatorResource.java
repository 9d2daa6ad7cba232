package io.fleetwave.demo;

import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.simulator.SimulatedGpuBackend;
import io.fleetwave.simulator.SimulatedNode;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * Disturbs simulated nodes of the demo fleet, so people (and tests) can watch recovery: reboot,
 * agent crash and restart, compute processes and open handles that block a GPU reset. Only for
 * nodes of the running demo fleet; any other node answers 404 "node X is not simulated".
 */
@Path("/api/v1/simulator/nodes/{name}")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
@RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
@APIResponse(responseCode = "404", description = "the node is not simulated (or not demo mode)")
public class SimulatorResource {
  private final DemoFleet demo;

  public SimulatorResource(DemoFleet demo) {
    this.demo = demo;
  }

  /** What a disturbance did. */
  public record Done(String node, String action, Long pid) {}

  /** A request body that names one GPU of the node by its index. */
  public interface GpuBody {
    Integer gpu();
  }

  /** {@code {"gpu": 0, "name": "python3"}} */
  public record StartProcess(Integer gpu, String name) implements GpuBody {}

  /** {@code {"gpu": 0, "pid": 4711}} */
  public record StopProcess(Integer gpu, Long pid) implements GpuBody {}

  /** {@code {"gpu": 0, "holder": "nvidia-persistenced"}} */
  public record Handle(Integer gpu, String holder) implements GpuBody {}

  @POST
  @Path("/reboot")
  @Operation(summary = "Reboot the host: MIG, VFs, instances and vGPU types are lost")
  public Done reboot(@PathParam("name") String name) {
    return act(name, "reboot", SimulatedNode::reboot);
  }

  @POST
  @Path("/crash-agent")
  @Operation(summary = "Kill the agent without AgentStopping")
  public Done crashAgent(@PathParam("name") String name) {
    return act(name, "crash-agent", SimulatedNode::crash);
  }

  @POST
  @Path("/restart-agent")
  @Operation(summary = "Start the agent again (a new epoch) if it is not running")
  public Done restartAgent(@PathParam("name") String name) {
    return act(name, "restart-agent", SimulatedNode::restart);
  }

  @POST
  @Path("/start-process")
  @Operation(summary = "Start a compute process on a GPU (blocks its reset)")
  @Consumes(MediaType.APPLICATION_JSON)
  public Done startProcess(@PathParam("name") String name, StartProcess body) {
    String process =
        body == null || body.name() == null || body.name().isBlank() ? "python3" : body.name();
    long pid = onGpu(name, gpuOf(body), (gpus, gpu) -> gpus.startProcess(gpu, process));
    return new Done(name, "start-process", pid);
  }

  @POST
  @Path("/stop-process")
  @Operation(summary = "Stop a compute process started with start-process")
  @Consumes(MediaType.APPLICATION_JSON)
  public Done stopProcess(@PathParam("name") String name, StopProcess body) {
    return onGpu(
        name,
        gpuOf(body),
        (gpus, gpu) -> {
          if (body.pid() == null) {
            throw invalid("pid", "the pid start-process answered is required");
          }
          gpus.stopProcess(gpu, body.pid());
          return new Done(name, "stop-process", body.pid());
        });
  }

  @POST
  @Path("/hold-handle")
  @Operation(summary = "Another client (e.g. nvidia-persistenced) opens the GPU")
  @Consumes(MediaType.APPLICATION_JSON)
  public Done holdHandle(@PathParam("name") String name, Handle body) {
    return onGpu(
        name, gpuOf(body), (gpus, gpu) -> gpus.holdHandle(gpu, holder(body)), "hold-handle");
  }

  @POST
  @Path("/release-handle")
  @Operation(summary = "The client closes the GPU again")
  @Consumes(MediaType.APPLICATION_JSON)
  public Done releaseHandle(@PathParam("name") String name, Handle body) {
    return onGpu(
        name, gpuOf(body), (gpus, gpu) -> gpus.releaseHandle(gpu, holder(body)), "release-handle");
  }

  /**
   * {@code {"gpu": 0, "migMode": "disabled"}} or {@code {"gpu": 0, "health": "failed"}}: what a
   * person with nvidia-smi (or a failing GPU) changes behind Fleetwave's back.
   */
  public record ByHand(Integer gpu, String migMode, String health) {}

  @POST
  @Path("/by-hand")
  @Operation(
      summary = "Change a GPU behind Fleetwave's back, as nvidia-smi would (drift)",
      description =
          "migMode (enabled, disabled): destroys the GPU's instances, sets the mode and resets the"
              + " GPU where the model needs it, as a person would; health (healthy, degraded,"
              + " failed): the GPU reports it, as a failing one does. The agent reports the"
              + " result as it reports any change.")
  @Consumes(MediaType.APPLICATION_JSON)
  public Done byHand(@PathParam("name") String name, ByHand body) {
    if (body == null) {
      node(name); // an unknown node is a 404 before the body's 400
      throw invalid("migMode", "give a body with migMode (enabled, disabled) or health");
    }
    return onGpu(name, body.gpu(), (gpus, gpu) -> byHand(gpus, gpu, body), "by-hand");
  }

  private static void byHand(SimulatedGpuBackend gpus, int gpu, ByHand body) {
    if ((body.migMode() == null) == (body.health() == null)) {
      throw invalid("migMode", "give either migMode (enabled, disabled) or health, not both");
    }
    if (body.health() != null) {
      gpus.setHealth(
          gpu, wire("health", body.health(), name -> WireNamed.parse(GpuHealth.class, name)));
      return;
    }
    MigMode mode = wire("migMode", body.migMode(), name -> WireNamed.parse(MigMode.class, name));
    if (mode == MigMode.UNSUPPORTED) {
      throw invalid("migMode", "enabled or disabled");
    }
    gpus.setMigModeByHand(gpu, mode == MigMode.ENABLED);
  }

  private static <T> T wire(
      String field, String value, java.util.function.Function<String, T> parse) {
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw invalid(field, e.getMessage());
    }
  }

  private Done act(String name, String action, Consumer<SimulatedNode> disturbance) {
    disturbance.accept(node(name));
    return new Done(name, action, null);
  }

  private SimulatedNode node(String name) {
    return demo.fleet()
        .flatMap(fleet -> fleet.node(name))
        .orElseThrow(
            () ->
                new ProblemException(
                    404, "not-simulated", "Not simulated", "node " + name + " is not simulated"));
  }

  /**
   * Finds the node (404 when it is not simulated), checks the GPU index (400), then runs {@code
   * call} on that GPU; what the simulated GPU refuses is a 422 with its reason.
   */
  private <T> T onGpu(String name, Integer gpu, GpuCall<T> call) {
    SimulatedNode node = node(name);
    if (gpu == null) {
      throw invalid("gpu", "the GPU index is required, e.g. {\"gpu\": 0}");
    }
    try {
      return call.on(node.gpus(), gpu);
    } catch (GpuOperationException | IllegalArgumentException e) {
      throw new ProblemException(
          422, "simulator-refused", "Refused by the simulated GPU", e.getMessage(), List.of());
    }
  }

  /** {@link #onGpu(String, Integer, GpuCall)} for a disturbance that answers nothing but done. */
  private Done onGpu(String name, Integer gpu, GpuDisturbance disturbance, String action) {
    return onGpu(
        name,
        gpu,
        (gpus, index) -> {
          disturbance.on(gpus, index);
          return new Done(name, action, null);
        });
  }

  /** One call on a simulated GPU, by index. */
  @FunctionalInterface
  private interface GpuCall<T> {
    T on(SimulatedGpuBackend gpus, int gpu);
  }

  /** One disturbance of a simulated GPU, by index. */
  @FunctionalInterface
  private interface GpuDisturbance {
    void on(SimulatedGpuBackend gpus, int gpu);
  }

  private static Integer gpuOf(GpuBody body) {
    return body == null ? null : body.gpu();
  }

  private static String holder(Handle body) {
    if (body.holder() == null || body.holder().isBlank()) {
      throw invalid("holder", "name the client, e.g. nvidia-persistenced");
    }
    return body.holder();
  }

  private static ProblemException invalid(String field, String message) {
    return ProblemException.invalid(
        field + ": " + message, List.of(new Problem.FieldError(field, message)));
  }
}
