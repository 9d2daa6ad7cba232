package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Walks an API listing ({@code items}, {@code total}) page by page, up to a limit.
 *
 * @param items the items read, in the API's order
 * @param total how many items the API has for the query (more than {@code items} when the limit cut
 *     the walk short)
 */
record PagedListing(ArrayNode items, long total) {
  /** Page size used to walk a listing (the API's maximum). */
  static final int PAGE_SIZE = 500;

  /** Every item of {@code path} with {@code params}, in the API's order. */
  static PagedListing fetchAll(ApiClient client, String path, Map<String, Object> params) {
    return fetch(client, path, params, Integer.MAX_VALUE);
  }

  /**
   * The items of {@code path} with {@code params}, at most {@code limit} of them, in the API's
   * order; {@code page} and {@code size} follow {@code params} in the query.
   */
  static PagedListing fetch(ApiClient client, String path, Map<String, Object> params, int limit) {
    ArrayNode items = Fleetctl.JSON.createArrayNode();
    long total = 0;
    for (int page = 0; items.size() < limit; page++) {
      Map<String, Object> query = new LinkedHashMap<>(params);
      query.put("page", page);
      query.put("size", PAGE_SIZE);
      JsonNode answer = client.get(path + ApiClient.query(query));
      total = answer.path("total").asLong();
      for (JsonNode item : answer.path("items")) {
        if (items.size() < limit) {
          items.add(item);
        }
      }
      if (answer.path("items").size() < PAGE_SIZE || (long) (page + 1) * PAGE_SIZE >= total) {
        break;
      }
    }
    return new PagedListing(items, total);
  }

  /** Shows the items as -o asks: JSON, YAML, or the {@code table} of them. */
  void show(CommandSpec spec, Function<JsonNode, Table> table) {
    Fleetctl.show(spec, items, () -> table.apply(items).render());
  }
}
