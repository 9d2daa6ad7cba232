package io.fleetwave.events.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.fleetwave.events.json.MappingPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one YAML reader of Fleetwave's own files (fleet files, mig-parted configs, the GPU
 * catalogue): strict (unknown fields, duplicate keys, null for a number and a second document are
 * refused) and every refusal names the line. Two ways to read: {@link #bind} into classes, for
 * files whose shape Jackson can check; {@link #tree} into a {@link YamlNode} tree that keeps each
 * node's line, for files checked field by field (mig-parted configs, whose every problem is
 * reported at once).
 */
public final class StrictYaml {
  private static final YAMLMapper MAPPER =
      YAMLMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();
  // The tree reader finds duplicate keys itself, to name the key and its line.
  private static final YAMLFactory FACTORY = YAMLFactory.builder().build();

  private StrictYaml() {}

  /**
   * Reads {@code text} into {@code type}. Mutable classes report an unknown field at its own line;
   * records only after their whole mapping.
   *
   * @param source names the text in messages (a file name)
   * @throws YamlException {@code source line N: unknown field 'x' in path (known: [...])}, {@code
   *     ...: invalid value at path: why}, or {@code ...: not valid YAML: why}
   */
  public static <T> T bind(String text, String source, Class<T> type) {
    try {
      return MAPPER.readValue(text, type);
    } catch (UnrecognizedPropertyException e) {
      throw new YamlException(
          source,
          line(e.getLocation()),
          e.getPropertyName(),
          "unknown field '"
              + e.getPropertyName()
              + "' in "
              + path(e)
              + " (known: "
              + e.getKnownPropertyIds().stream().map(Object::toString).sorted().toList()
              + ")",
          e);
    } catch (JsonMappingException e) {
      throw new YamlException(
          source,
          line(e.getLocation()),
          "",
          "invalid value at " + path(e) + ": " + e.getOriginalMessage(),
          e);
    } catch (JsonProcessingException e) {
      throw new YamlException(
          source, line(e.getLocation()), "", "not valid YAML: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Reads one YAML document into a tree that remembers lines.
   *
   * @throws YamlException for an empty text, a second document, a duplicate key or text that is not
   *     YAML, with the line
   */
  public static YamlNode tree(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new YamlException(null, 1, "", "the file is empty", null);
      }
      YamlNode root = node(parser, first);
      if (parser.nextToken() != null) {
        throw new YamlException(null, line(parser), "", "only one YAML document is allowed", null);
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new YamlException(
          null, line(e.getLocation()), "", "not valid YAML: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static YamlNode node(JsonParser parser, JsonToken token) throws IOException {
    int line = line(parser);
    if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
      // The parser hands an alias over as a string holding the anchor's name: the value it stands
      // for would silently become that name.
      throw new YamlException(
          null,
          line,
          "",
          "YAML aliases are not supported (*"
              + parser.getText()
              + "): write the value out where it is used",
          null);
    }
    return switch (token) {
      case START_OBJECT -> mapping(parser, line);
      case START_ARRAY -> sequence(parser, line);
      case VALUE_STRING -> new YamlNode.Scalar(parser.getText(), YamlNode.Scalar.Kind.STRING, line);
      case VALUE_NUMBER_INT ->
          new YamlNode.Scalar(parser.getText(), YamlNode.Scalar.Kind.INTEGER, line);
      case VALUE_NUMBER_FLOAT ->
          new YamlNode.Scalar(parser.getText(), YamlNode.Scalar.Kind.FLOAT, line);
      case VALUE_TRUE, VALUE_FALSE ->
          new YamlNode.Scalar(parser.getText(), YamlNode.Scalar.Kind.BOOLEAN, line);
      case VALUE_NULL -> new YamlNode.Scalar("null", YamlNode.Scalar.Kind.NULL, line);
      default -> throw new YamlException(null, line, "", "unexpected YAML token " + token, null);
    };
  }

  private static YamlNode mapping(JsonParser parser, int line) throws IOException {
    List<YamlNode.Entry> entries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
      String key = parser.currentName();
      int keyLine = line(parser);
      if (!seen.add(key)) {
        throw new YamlException(null, keyLine, key, "duplicate key '" + key + "'", null);
      }
      YamlNode value = node(parser, parser.nextToken());
      entries.add(new YamlNode.Entry(key, keyLine, value));
    }
    return new YamlNode.Mapping(entries, line);
  }

  private static YamlNode sequence(JsonParser parser, int line) throws IOException {
    List<YamlNode> items = new ArrayList<>();
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
      items.add(node(parser, t));
    }
    return new YamlNode.Sequence(items, line);
  }

  private static int line(JsonParser parser) {
    return parser.currentTokenLocation().getLineNr();
  }

  private static int line(JsonLocation location) {
    return location == null || location.getLineNr() < 0 ? 0 : location.getLineNr();
  }

  private static String path(JsonMappingException e) {
    String path = MappingPath.of(e);
    return path.isEmpty() ? "the document" : path;
  }
}
