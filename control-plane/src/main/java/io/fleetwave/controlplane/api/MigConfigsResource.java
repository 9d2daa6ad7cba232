package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.mig.store.MigConfigImport;
import io.fleetwave.controlplane.mig.store.MigConfigStore;
import io.fleetwave.controlplane.mig.store.MigEntryView;
import io.fleetwave.controlplane.mig.store.StoredMigConfig;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.core.mig.MigConfigException;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/mig-configs")
@Produces(MediaType.APPLICATION_JSON)
public class MigConfigsResource {
  static final String YAML = "application/yaml";

  private final MigConfigStore store;

  public MigConfigsResource(MigConfigStore store) {
    this.store = store;
  }

  /** A listed config: its name, where it came from and one line per entry. */
  public record MigConfigSummary(
      String name, String source, Instant importedAt, List<String> entries) {}

  /** One config with its entries as JSON. */
  public record MigConfigView(
      String name, String source, Instant importedAt, List<MigEntryView> entries) {}

  @RolesAllowed(Roles.ADMIN)
  @POST
  @Consumes({YAML, "text/yaml"})
  @Operation(
      summary = "Import a mig-parted file",
      description =
          "Imports every config of a mig-parted (NVIDIA/mig-parted v1) YAML file. Parsing is strict"
              + " (unknown fields, malformed entries) and every layout is checked against the GPU"
              + " models it names; any problem refuses the whole file with 422 and an `errors`"
              + " array of {line, field, message}, and nothing is stored. A config whose name is"
              + " already stored is replaced; `replaced` lists those names.")
  @RequestBody(
      content =
          @Content(
              mediaType = YAML,
              schema =
                  @Schema(
                      type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.STRING)))
  @APIResponse(responseCode = "201", description = "stored")
  @APIResponse(
      responseCode = "422",
      description = "refused: problem+json with errors[{line, field, message}]")
  public Uni<Response> importFile(
      String yaml,
      @Parameter(description = "where the file comes from, kept with each config (default: api)")
          @QueryParam("source")
          String source) {
    if (yaml == null || yaml.isBlank()) {
      throw new ProblemException(
              422, "invalid-mig-config", "Invalid mig-parted file", "the request body is empty")
          .with("errors", List.of());
    }
    Uni<MigConfigImport> stored;
    try {
      stored = store.importFile(yaml, source == null || source.isBlank() ? "api" : source.strip());
    } catch (MigConfigException e) {
      throw new ProblemException(
              422, "invalid-mig-config", "Invalid mig-parted file", e.getMessage())
          .with("errors", e.problems());
    }
    return stored.map(result -> Response.status(Response.Status.CREATED).entity(result).build());
  }

  @GET
  @Operation(summary = "Every stored MIG config with a one-line summary per entry, by name")
  public Uni<List<MigConfigSummary>> list() {
    return store
        .list()
        .map(
            configs ->
                configs.stream()
                    .map(
                        c ->
                            new MigConfigSummary(
                                c.name(),
                                c.source(),
                                c.importedAt(),
                                c.entries().stream().map(MigEntryView::summary).toList()))
                    .toList());
  }

  @GET
  @Path("/{name}")
  @Produces({MediaType.APPLICATION_JSON, YAML})
  @Operation(
      summary = "One MIG config",
      description =
          "JSON by default; the config alone as a mig-parted file with Accept: application/yaml."
              + " 404 when no config has that name.")
  public Uni<Response> get(
      @PathParam("name") String name, @HeaderParam(HttpHeaders.ACCEPT) String accept) {
    return store
        .find(name)
        .map(
            found -> {
              StoredMigConfig config =
                  found.orElseThrow(
                      () ->
                          new ProblemException(
                              404,
                              "unknown-mig-config",
                              "Unknown MIG config",
                              "no MIG config named '" + name + "' has been imported"));
              if (wantsYaml(accept)) {
                return Response.ok(config.yaml(), YAML).build();
              }
              return Response.ok(
                      new MigConfigView(
                          config.name(), config.source(), config.importedAt(), config.entries()),
                      MediaType.APPLICATION_JSON)
                  .build();
            });
  }

  private static boolean wantsYaml(String accept) {
    return accept != null
        && (accept.contains(YAML) || accept.contains("text/yaml"))
        && !accept.contains(MediaType.APPLICATION_JSON);
  }
}
