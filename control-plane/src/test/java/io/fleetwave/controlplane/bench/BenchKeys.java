package io.fleetwave.controlplane.bench;

import io.fleetwave.events.security.NodeEventSigner;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * {@code -Dbench.signed=true}: every bench node signs its events with its own enrolled key, as
 * agents do in production (the control plane's default is {@code
 * fleetwave.node-identity.required=true}), so the projection's figures include the signature check
 * of every record. Off by default, so figures stay comparable with earlier runs.
 */
final class BenchKeys {
  private final NodeEventSigner[] signers;

  private BenchKeys(int nodes) {
    signers = new NodeEventSigner[nodes];
    for (int node = 0; node < nodes; node++) {
      signers[node] = NodeEventSigner.generate();
    }
  }

  /** The keys of nodes {@code 0..nodes-1}, or null when the bench runs unsigned. */
  static BenchKeys forBench(int nodes) {
    return Boolean.getBoolean("bench.signed") ? new BenchKeys(nodes) : null;
  }

  /** Enrolls every node's key, as the enrolment API would (run before the control plane starts). */
  void enroll(Connection db) throws java.sql.SQLException {
    try (PreparedStatement insert =
        db.prepareStatement(
            "INSERT INTO node_keys (key_id, node, public_key, credential, enrolled_at)"
                + " VALUES (?, ?, ?, 'bench', ?)")) {
      Timestamp now = Timestamp.from(Instant.now());
      for (int node = 0; node < signers.length; node++) {
        insert.setString(1, signers[node].keyId());
        insert.setString(2, BenchFleet.nodeName(node));
        insert.setString(3, signers[node].publicKeyPem());
        insert.setTimestamp(4, now);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** The record with its node's key id and signature headers. */
  ProducerRecord<String, byte[]> sign(int node, ProducerRecord<String, byte[]> record) {
    NodeEventSigner signer = signers[node];
    record
        .headers()
        .add(
            new RecordHeader(
                NodeEventSigner.KEY_ID_HEADER, signer.keyId().getBytes(StandardCharsets.UTF_8)))
        .add(
            new RecordHeader(
                NodeEventSigner.SIGNATURE_HEADER,
                signer.sign(record.value()).getBytes(StandardCharsets.UTF_8)));
    return record;
  }
}
