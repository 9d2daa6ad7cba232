package io.fleetwave.controlplane.mig;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Reads YAML text into a {@link YamlNode} tree with line numbers, rejecting duplicate keys. */
final class YamlTreeReader {
  private static final YAMLFactory YAML = YAMLFactory.builder().build();

  private YamlTreeReader() {}

  static YamlNode read(String text) {
    try (JsonParser parser = YAML.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new MigConfigException(List.of(new MigConfigProblem(1, "", "the file is empty")));
      }
      YamlNode root = node(parser, first);
      if (parser.nextToken() != null) {
        throw new MigConfigException(
            List.of(new MigConfigProblem(line(parser), "", "only one YAML document is allowed")));
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      int line = at == null ? 0 : at.getLineNr();
      throw new MigConfigException(
          List.of(new MigConfigProblem(line, "", "not valid YAML: " + e.getOriginalMessage())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static YamlNode node(JsonParser parser, JsonToken token) throws IOException {
    int line = line(parser);
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
      default ->
          throw new MigConfigException(
              List.of(new MigConfigProblem(line, "", "unexpected YAML token " + token)));
    };
  }

  private static YamlNode mapping(JsonParser parser, int line) throws IOException {
    List<YamlNode.Entry> entries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
      String key = parser.currentName();
      int keyLine = line(parser);
      if (!seen.add(key)) {
        throw new MigConfigException(
            List.of(new MigConfigProblem(keyLine, key, "duplicate key '" + key + "'")));
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
}
