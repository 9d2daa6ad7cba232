package io.fleetwave.events.json;

import com.fasterxml.jackson.databind.JsonMappingException;

/** Where in a document Jackson refused a value, as {@code gpus[0].memoryMiB}. */
public final class MappingPath {
  private MappingPath() {}

  /** The field path of the refusal; empty for the document itself. */
  public static String of(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        if (!path.isEmpty()) {
          path.append('.');
        }
        path.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.toString();
  }
}
