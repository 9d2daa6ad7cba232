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
 * Every bench node's own key, enrolled, and its events signed with it and carrying the MAC agreed
 * with the control plane's key ({@link BenchServices#COMMAND_KEY}), as agents send them in
 * production (every control plane requires node identity), so every figure includes the check of
 * every record. There is no unsigned mode: the benches measure what ships.
 */
final class BenchKeys {
  private final NodeEventSigner[] signers;

  private BenchKeys(int nodes) {
    signers = new NodeEventSigner[nodes];
    String controlPlaneKey = BenchServices.COMMAND_KEY.agreementKey().publicKey();
    for (int node = 0; node < nodes; node++) {
      signers[node] = NodeEventSigner.generate().withMacFor(controlPlaneKey);
    }
  }

  /** A fresh key for each of nodes {@code 0..nodes-1}. */
  static BenchKeys generate(int nodes) {
    return new BenchKeys(nodes);
  }

  /** What the figures are printed next to. */
  static String describe() {
    return "signed, each node by its own enrolled Ed25519 key, and MACed with the key it agreed"
        + " with the control plane (node identity required)";
  }

  /**
   * Enrolls the keys of nodes {@code from..to-1}: the benches' one place of enrolment. It writes
   * the node_keys rows the enrolment API writes (NodeKeyStore.enroll), directly, so that a backlog
   * published before the control plane starts meets only known keys and the projection's figures
   * hold no enrolment traffic. When enrolments move to a topic of their own (written through to
   * node_keys), this is the method to switch to that API.
   */
  void enroll(Connection db, int from, int to) throws java.sql.SQLException {
    try (PreparedStatement insert =
        db.prepareStatement(
            "INSERT INTO node_keys (key_id, node, public_key, credential, enrolled_at)"
                + " VALUES (?, ?, ?, 'bench enrolment', ?)")) {
      Timestamp now = Timestamp.from(Instant.now());
      for (int node = from; node < to; node++) {
        insert.setString(1, signers[node].keyId());
        insert.setString(2, BenchFleet.nodeName(node));
        insert.setString(3, signers[node].publicKeyPem());
        insert.setTimestamp(4, now);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** The record with its node's headers (key id, signature, MAC), as its agent sends it. */
  ProducerRecord<String, byte[]> sign(int node, ProducerRecord<String, byte[]> record) {
    signers[node].addHeaders(
        record.value(),
        (name, text) ->
            record.headers().add(new RecordHeader(name, text.getBytes(StandardCharsets.UTF_8))));
    return record;
  }
}
