package io.fleetwave.events.codec;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * A parser that stops at the first floating-point number, for {@link StructuredEventReader}'s
 * payloads. The reference path reads every float through a tree, as a double: {@code 1e20} given to
 * a text field becomes {@code "1.0E20"} there but {@code "1e20"} from the stream, and long decimals
 * lose their last digits there only. No payload has a float field, so a record holding one is left
 * to the reference rather than matched to it case by case.
 *
 * <p>Every way to advance goes through {@link #nextToken}: the delegate's shortcuts ({@code
 * nextTextValue}, {@code nextFieldName}, ...) would step over the check.
 */
final class IntegralNumbersParser extends JsonParserDelegate {
  IntegralNumbersParser(JsonParser parser) {
    super(parser);
  }

  @Override
  public JsonToken nextToken() throws IOException {
    JsonToken token = delegate.nextToken();
    if (token == JsonToken.VALUE_NUMBER_FLOAT) {
      throw new JsonParseException(this, "a float is read along the reference path");
    }
    return token;
  }

  @Override
  public JsonToken nextValue() throws IOException {
    JsonToken token = nextToken();
    return token == JsonToken.FIELD_NAME ? nextToken() : token;
  }

  @Override
  public String nextFieldName() throws IOException {
    return nextToken() == JsonToken.FIELD_NAME ? currentName() : null;
  }

  @Override
  public boolean nextFieldName(SerializableString name) throws IOException {
    return nextToken() == JsonToken.FIELD_NAME && name.getValue().equals(currentName());
  }

  @Override
  public String nextTextValue() throws IOException {
    return nextToken() == JsonToken.VALUE_STRING ? getText() : null;
  }

  @Override
  public int nextIntValue(int defaultValue) throws IOException {
    return nextToken() == JsonToken.VALUE_NUMBER_INT ? getIntValue() : defaultValue;
  }

  @Override
  public long nextLongValue(long defaultValue) throws IOException {
    return nextToken() == JsonToken.VALUE_NUMBER_INT ? getLongValue() : defaultValue;
  }

  @Override
  public Boolean nextBooleanValue() throws IOException {
    JsonToken token = nextToken();
    return token == JsonToken.VALUE_TRUE
        ? Boolean.TRUE
        : token == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
  }
}
