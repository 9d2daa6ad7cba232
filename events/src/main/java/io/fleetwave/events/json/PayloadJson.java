package io.fleetwave.events.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The JSON rules of every payload: one mapper, built once. The event and command codecs write and
 * read records with it ({@code EventCodec.mapper()} is how callers outside the contract get it),
 * and the GPU catalogue reads its bundled JSON with it, so an agent builds one mapper, not two; it
 * lives below both so that the catalogue does not depend on the codec.
 */
public final class PayloadJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          // Strict on what matters: wrong types and missing fields are errors, not zeroes.
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
          // Tolerant on what does not: a producer may add fields within a version.
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  private PayloadJson() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
