package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** Walks an API listing ({@code items}, {@code total}) page by page, up to a limit. */
final class PagedListing {
  private PagedListing() {}

  /**
   * The items of {@code path} with {@code params}, at most {@code limit} of them, in the API's
   * order.
   */
  static ArrayNode fetch(ApiClient client, String path, Map<String, Object> params, int limit) {
    ArrayNode items = Fleetctl.JSON.createArrayNode();
    for (int page = 0; items.size() < limit; page++) {
      Map<String, Object> query = new LinkedHashMap<>(params);
      query.put("page", page);
      query.put("size", NodesCommand.PAGE_SIZE);
      JsonNode answer = client.get(path + ApiClient.query(query));
      for (JsonNode item : answer.path("items")) {
        if (items.size() < limit) {
          items.add(item);
        }
      }
      if (answer.path("items").size() < NodesCommand.PAGE_SIZE
          || (long) (page + 1) * NodesCommand.PAGE_SIZE >= answer.path("total").asLong()) {
        return items;
      }
    }
    return items;
  }
}
