package io.fleetwave.controlplane.paging;

import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/**
 * The {@code page} and {@code size} query parameters of every paged listing, taken with
 * {@code @BeanParam}: described once for the OpenAPI document and read through {@link
 * PageRequest#parse}.
 */
public class PageParameters {
  @Parameter(description = "0-based page number (default 0)")
  @QueryParam("page")
  String page;

  @Parameter(description = "page size, 1.." + PageRequest.MAX_SIZE + " (default 50)")
  @QueryParam("size")
  String size;

  /** The page asked for; a 400 problem naming the parameter when it is out of bounds. */
  public PageRequest request() {
    return PageRequest.parse(page, size);
  }
}
