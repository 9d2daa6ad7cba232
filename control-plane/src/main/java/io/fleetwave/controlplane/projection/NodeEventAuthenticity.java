package io.fleetwave.controlplane.projection;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.fleetwave.controlplane.identity.NodeKeyStore;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.RecordDecoder;
import io.fleetwave.events.security.AgreementKey;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventMacKey;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.security.NodeEventVerifier;
import io.fleetwave.events.security.NodePublicKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jboss.logging.Logger;

/**
 * Whether records of fleet.node-events come from their node: one read of the keys a batch names (so
 * a revocation applies from the next batch on, on every replica), then {@link NodeEventVerifier}
 * per record: on the record's MAC, under the key the node agreed with this control plane's
 * agreement key ({@link CommandSigning#agreementKey()}), else on its signature. Shared by the
 * projection, its rebuild and the rollout engine, so they accept and refuse the same records.
 */
@ApplicationScoped
public class NodeEventAuthenticity {
  /** The verdict on one record: empty when it is its node's own, else the dead letter's reason. */
  @FunctionalInterface
  public interface Check {
    Optional<String> refusal(String node, byte[] value, Headers headers);
  }

  /** The check for one batch of records, given their headers (blocking). */
  @FunctionalInterface
  public interface BatchCheck {
    Check forBatch(List<Headers> batch);
  }

  /** Batches of at least this many records are decoded in parallel ({@link #decodeAll}). */
  static final int PARALLEL_FROM = 256;

  /**
   * Keys read from their PEM once, across batches (an id names one key for good: {@link
   * NodePublicKey}), with the MAC key agreed for them, about 1 KB each: at most about 50 MB. A
   * fleet with more nodes reads the others' keys again per batch. Revocation is read per batch.
   */
  static final int KEPT_KEYS = 50_000;

  /** A node key as its records are checked: the key, and its MAC key (null when none agreed). */
  private record KeptKey(NodePublicKey key, NodeEventMacKey macKey) {}

  private static final Logger LOG = Logger.getLogger(NodeEventAuthenticity.class);

  private final Cache<String, KeptKey> keptKeys =
      Caffeine.newBuilder().maximumSize(KEPT_KEYS).build();
  private final Pool pool;
  private final Duration timeout;
  private final Optional<AgreementKey> agreementKey;
  private final Counter byMac;
  private final Counter bySignature;

  public NodeEventAuthenticity(
      Pool pool, NodeIdentityConfig config, CommandSigning commandSigning, MeterRegistry registry) {
    this.pool = pool;
    this.timeout = config.timeout();
    this.agreementKey = commandSigning.agreementKey();
    // Records checked by their signature while their node agreed a MAC key cost fifty times as
    // much: after a command-key rotation, until the nodes enroll again, or from older agents.
    this.byMac = authenticated(registry, "mac");
    this.bySignature = authenticated(registry, "signature");
  }

  private static Counter authenticated(MeterRegistry registry, String proof) {
    return Counter.builder("fleetwave.node.events.authenticated")
        .description(
            "Node event records found to be their node's own, by what showed it (mac: the MAC"
                + " agreed at enrolment, about 1 us; signature: the Ed25519 check, 60-90 us); every"
                + " reader counts (the projection, its rebuild, the rollout engine)")
        .tag("by", proof)
        .register(registry);
  }

  /** A check for a batch whose records carry these headers; reads the keys they name. */
  public Uni<Check> forBatch(Iterable<Headers> batch) {
    Set<String> keyIds = new TreeSet<>();
    for (Headers headers : batch) {
      String keyId = text(headers, NodeEventSigner.KEY_ID_HEADER);
      if (keyId != null) {
        keyIds.add(keyId);
      }
    }
    if (keyIds.isEmpty()) {
      return Uni.createFrom().item(check(Map.of()));
    }
    return NodeKeyStore.byId(pool, keyIds, this::enrolledKey).map(this::check);
  }

  private EnrolledKey enrolledKey(String keyId, String node, String pem, boolean revoked) {
    KeptKey kept = keptKeys.get(keyId, id -> keep(pem));
    return new EnrolledKey(node, kept.key(), revoked, kept.macKey());
  }

  private KeptKey keep(String pem) {
    NodePublicKey key = NodePublicKey.parse(pem);
    if (agreementKey.isEmpty()) {
      return new KeptKey(key, null);
    }
    try {
      return new KeptKey(key, agreementKey.get().macKeyWithNode(key));
    } catch (IllegalArgumentException e) {
      // No key a node generates gets here; its records are then checked by their signature.
      LOG.warnf(
          "node key %s: no MAC key agreed, its records' signatures are checked: %s",
          key.id(), e.getMessage());
      return new KeptKey(key, null);
    }
  }

  /**
   * A record of fleet.node-events decoded, once its node is known to have signed it: the signature
   * is checked before anything of the value is parsed.
   */
  public static DecodedRecord decode(Check check, String key, byte[] value, Headers headers) {
    if (key != null) {
      Optional<String> refusal = check.refusal(key, value, headers);
      if (refusal.isPresent()) {
        return new DecodedRecord.Rejected(refusal.get());
      }
    }
    return RecordDecoder.decode(key, value);
  }

  /**
   * Records of one batch decoded ({@link #decode}), in the batch's order. A large batch is decoded
   * on every core (a parallel stream keeps the order): each record's verdict depends on that record
   * alone, and its signature check is most of its CPU (about 0.1 ms of Bouncy Castle's Ed25519,
   * against 10-20 us of parsing), which one thread paid for the whole batch while the database
   * waited; a record with a MAC costs a thirtieth to a seventieth of that. Small batches, the live
   * tail's, stay on the calling thread.
   */
  public static <R> List<DecodedRecord> decodeAll(
      List<R> records, Function<R, DecodedRecord> decode) {
    if (records.size() < PARALLEL_FROM) {
      return records.stream().map(decode).toList();
    }
    return records.parallelStream().map(decode).toList();
  }

  /** {@link #forBatch} for callers on a thread that may block (the rebuild, the engine). */
  public Check forBatchBlocking(Iterable<Headers> batch) {
    return forBatch(batch).await().atMost(timeout);
  }

  private Check check(Map<String, EnrolledKey> keys) {
    return (node, value, headers) ->
        switch (NodeEventVerifier.check(
            node,
            value,
            text(headers, NodeEventSigner.KEY_ID_HEADER),
            text(headers, NodeEventSigner.SIGNATURE_HEADER),
            text(headers, NodeEventSigner.MAC_HEADER),
            keys::get)) {
          case NodeEventVerifier.Accepted accepted -> {
            (accepted.proof() == NodeEventVerifier.Proof.MAC ? byMac : bySignature).increment();
            yield Optional.empty();
          }
          case NodeEventVerifier.Refused refused -> Optional.of(refused.reason());
        };
  }

  private static String text(Headers headers, String name) {
    Header header = headers == null ? null : headers.lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
