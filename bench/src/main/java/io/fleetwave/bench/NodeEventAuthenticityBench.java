package io.fleetwave.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.security.NodeEventVerifier;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the control plane pays per node event to know its node sent it (issue 36, item 2): the
 * projection's check of a signed record ({@link NodeEventVerifier}: the enrolled key looked up, the
 * Ed25519 signature over the value checked by Bouncy Castle), against two baselines of the same
 * run: decoding the same record, which every record pays anyway, and the JDK's own Ed25519 check of
 * the same signature, which the check replaced. Microseconds per record: divide the check by the
 * decode for what authenticity costs over reading the record at all. A fourth figure prices the
 * cheaper check item 2 names and nothing ships yet: an HMAC-SHA256 of the same bytes under a
 * 32-byte key, as a per-node key agreed at enrolment would be.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NodeEventAuthenticityBench {
  @Param({"heartbeat", "inventory"})
  public String event;

  private byte[] bytes;
  private String keyId;
  private String signature;
  private Map<String, EnrolledKey> enrolled;
  private Signature jdk;
  private byte[] signatureBytes;
  private Mac mac;

  @Setup
  public void signOnce() throws GeneralSecurityException {
    Envelope<NodeEvent> envelope = BenchEvents.envelope(event);
    NodeEventSigner signer = NodeEventSigner.generate();
    bytes = EventCodec.encode(envelope);
    keyId = signer.keyId();
    signature = signer.sign(bytes);
    EnrolledKey key = EnrolledKey.of(BenchEvents.NODE, signer.publicKeyPem(), false);
    enrolled = Map.of(keyId, key);
    jdk = Signature.getInstance("Ed25519");
    jdk.initVerify(key.publicKey().jdkKey());
    signatureBytes = Base64.getDecoder().decode(signature);
    mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(new SecureRandom().generateSeed(32), "HmacSHA256"));
    // Each path must accept the record, or the figures measure a refusal.
    if (check().isPresent() || !jdkCheck()) {
      throw new IllegalStateException("the " + event + " record is not accepted as its node's");
    }
  }

  @Benchmark
  public Optional<NodeEventVerifier.Refused> check() {
    return NodeEventVerifier.verify(BenchEvents.NODE, bytes, keyId, signature, enrolled::get);
  }

  /** Baseline: the decode every record pays, of the same bytes. */
  @Benchmark
  public Envelope<FleetEvent> baselineDecode() throws EventRejectedException {
    return EventCodec.decode(bytes);
  }

  /** Baseline: the JDK's Ed25519 (SunEC) checking the same signature. */
  @Benchmark
  public boolean baselineJdkEd25519() throws GeneralSecurityException {
    return jdkCheck();
  }

  /** Candidate: an HMAC-SHA256 of the same bytes, what a per-node MAC check would compute. */
  @Benchmark
  public byte[] candidateHmacSha256() {
    return mac.doFinal(bytes);
  }

  private boolean jdkCheck() throws GeneralSecurityException {
    jdk.update(bytes);
    return jdk.verify(signatureBytes);
  }
}
