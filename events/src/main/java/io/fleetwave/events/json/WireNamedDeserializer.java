package io.fleetwave.events.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.io.Serial;

/**
 * Jackson's reader of every {@link WireNamed} enum, named once on the interface: the enum a value
 * is read as comes from the context, the constant from {@link WireNamed#parse}. A wrong name fails
 * as a creator failing would ({@code Cannot construct instance of ..., problem: unknown ...}), so
 * the codec reports it with its field path as before.
 */
public final class WireNamedDeserializer extends StdScalarDeserializer<Object>
    implements ContextualDeserializer {
  @Serial private static final long serialVersionUID = 1L;

  /**
   * The form Jackson instantiates from the annotation; {@link #createContextual} gives the type.
   */
  public WireNamedDeserializer() {
    super(WireNamed.class);
  }

  private WireNamedDeserializer(Class<?> type) {
    super(type);
  }

  @Override
  public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
    return new WireNamedDeserializer(ctxt.getContextualType().getRawClass());
  }

  @Override
  public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.currentToken().isScalarValue()) {
      return ctxt.handleUnexpectedToken(handledType(), p);
    }
    try {
      return WireNameTable.read(handledType(), p.getValueAsString());
    } catch (IllegalArgumentException e) {
      throw ctxt.instantiationException(handledType(), e);
    }
  }
}
