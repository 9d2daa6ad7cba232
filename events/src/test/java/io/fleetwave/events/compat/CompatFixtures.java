package io.fleetwave.events.compat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.NodeEventSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a release's compatibility fixtures: every record of {@link Release010Records} as the
 * current codec encodes it, one JSON file each, with what Kafka carries beside the value (topic,
 * key, and for fleet.node-events the signature headers, signed with the fixture key {@value
 * #KEY_FILE} kept next to them). Run once, when the release is cut (docs/release.md):
 *
 * <pre>
 * ./mvnw -o -q -pl events test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.fleetwave.events.compat.CompatFixtures \
 *   -Dexec.args=events/src/test/resources/compat/0.1.0
 * </pre>
 *
 * <p>Never run again for a released version: its files are what that release wrote.
 */
public final class CompatFixtures {
  /** A test-only Ed25519 key (PKCS#8 PEM): signs the fixture node's records, nothing else. */
  static final String KEY_FILE = "node-key.pem";

  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private CompatFixtures() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println(
          "usage: CompatFixtures DIRECTORY (e.g. events/src/test/resources/compat/X.Y.Z)");
      System.exit(2);
    }
    Path dir = Files.createDirectories(Path.of(args[0]));
    Path keyFile = dir.resolve(KEY_FILE);
    NodeEventSigner signer = NodeEventSigner.generate();
    Files.writeString(keyFile, signer.privateKeyPem());
    int written = 0;
    for (Release010Records.Sample sample : Release010Records.all()) {
      byte[] value = EventCodec.encode(sample.envelope());
      ObjectNode record = JSON.createObjectNode();
      record.put("topic", sample.topic());
      record.put("key", sample.key());
      ObjectNode headers = record.putObject("headers");
      if (sample.signed()) {
        headers.put(NodeEventSigner.KEY_ID_HEADER, signer.keyId());
        headers.put(NodeEventSigner.SIGNATURE_HEADER, signer.sign(value));
      }
      record.put("value", new String(value, StandardCharsets.UTF_8));
      Files.writeString(dir.resolve(sample.file()), JSON.writeValueAsString(record) + "\n");
      written++;
    }
    System.out.println("wrote " + written + " records and " + KEY_FILE + " to " + dir);
  }
}
