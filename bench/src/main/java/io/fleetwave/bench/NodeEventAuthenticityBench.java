package io.fleetwave.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.security.NodeEventVerifier;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
 * decode for what authenticity costs over reading the record at all. {@link #macCheck} is the check
 * of the record as an agent sends it since the node-event MAC: the same signature, and the MAC
 * under the key the node agreed with the control plane, which the verifier accepts instead.
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
  private String mac;
  private Map<String, EnrolledKey> enrolledWithMac;

  @Setup
  public void signOnce() throws GeneralSecurityException {
    Envelope<NodeEvent> envelope = BenchEvents.envelope(event);
    CommandSigner controlPlane = CommandSigner.generate();
    NodeEventSigner signer =
        NodeEventSigner.generate().withMacFor(controlPlane.agreementKey().publicKey());
    bytes = EventCodec.encode(envelope);
    keyId = signer.keyId();
    signature = signer.sign(bytes);
    EnrolledKey key = EnrolledKey.of(BenchEvents.NODE, signer.publicKeyPem(), false);
    enrolled = Map.of(keyId, key);
    jdk = Signature.getInstance("Ed25519");
    jdk.initVerify(key.publicKey().jdkKey());
    signatureBytes = Base64.getDecoder().decode(signature);
    Map<String, String> headers = new HashMap<>();
    signer.addHeaders(bytes, headers::put);
    mac = headers.get(NodeEventSigner.MAC_HEADER);
    enrolledWithMac =
        Map.of(
            keyId,
            new EnrolledKey(
                BenchEvents.NODE,
                key.publicKey(),
                false,
                controlPlane.agreementKey().macKeyWithNode(key.publicKey())));
    // Each path must accept the record, or the figures measure a refusal; the MAC path must take
    // the MAC, not the signature beside it.
    NodeEventVerifier.Verdict byMac = macCheck();
    boolean macAlone =
        NodeEventVerifier.check(BenchEvents.NODE, bytes, keyId, null, mac, enrolledWithMac::get)
            instanceof NodeEventVerifier.Accepted;
    if (check().isPresent()
        || !(byMac instanceof NodeEventVerifier.Accepted accepted)
        || accepted.proof() != NodeEventVerifier.Proof.MAC
        || !macAlone
        || !jdkCheck()) {
      throw new IllegalStateException("the " + event + " record is not accepted as its node's");
    }
  }

  /** The check of a record with no MAC (an agent older than the MAC): its signature. */
  @Benchmark
  public Optional<NodeEventVerifier.Refused> check() {
    return NodeEventVerifier.verify(BenchEvents.NODE, bytes, keyId, signature, enrolled::get);
  }

  /** The check of a record as agents send it now: signed, and MACed, accepted on the MAC. */
  @Benchmark
  public NodeEventVerifier.Verdict macCheck() {
    return NodeEventVerifier.check(
        BenchEvents.NODE, bytes, keyId, signature, mac, enrolledWithMac::get);
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

  private boolean jdkCheck() throws GeneralSecurityException {
    jdk.update(bytes);
    return jdk.verify(signatureBytes);
  }
}
