package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.kubernetes.GateLabels;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import io.smallrye.reactive.messaging.kafka.KafkaRecordBatch;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Consumes fleet.node-events in batches: refused records go to the dead-letter topic, the rest are
 * applied in one transaction, and only then is the batch acknowledged (its offsets committed).
 * At-least-once delivery plus the idempotent apply makes the projection exactly once in effect.
 */
@ApplicationScoped
public class NodeEventsConsumer {
  public static final String CHANNEL = "node-events";
  private static final Logger LOG = Logger.getLogger(NodeEventsConsumer.class);
  private static final int WRITE_ATTEMPTS = 8;

  private final ProjectionWriter writer;
  private final DeadLetters deadLetters;
  private final ProjectionMetrics metrics;
  private final GateLabels gateLabels;

  public NodeEventsConsumer(
      ProjectionWriter writer,
      DeadLetters deadLetters,
      ProjectionMetrics metrics,
      GateLabels gateLabels) {
    this.gateLabels = gateLabels;
    this.writer = writer;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
  }

  private static long offset(KafkaRecord<String, byte[]> record) {
    return record
        .getMetadata(IncomingKafkaRecordMetadata.class)
        .map(IncomingKafkaRecordMetadata::getOffset)
        .orElse(-1L);
  }

  @Incoming(CHANNEL)
  public Uni<Void> consume(KafkaRecordBatch<String, byte[]> batch) {
    List<Envelope<NodeEvent>> events = new ArrayList<>();
    List<Rejection> rejections = new ArrayList<>();
    for (KafkaRecord<String, byte[]> record : batch) {
      long offset = offset(record);
      switch (RecordDecoder.decode(record.getKey(), record.getPayload())) {
        case DecodedRecord.Accepted accepted -> events.add(accepted.envelope());
        case DecodedRecord.Rejected rejected -> {
          LOG.warnf(
              "dead-lettering %s-%d@%d: %s",
              record.getTopic(), record.getPartition(), offset, rejected.reason());
          rejections.add(
              new Rejection(
                  record.getTopic(),
                  record.getPartition(),
                  offset,
                  record.getKey(),
                  record.getPayload(),
                  rejected.reason()));
        }
      }
    }
    int records = batch.getRecords().size();
    return deadLetters
        .sendAll(rejections)
        .chain(
            () ->
                writer
                    .apply(ProjectionTables.LIVE, events)
                    .onFailure()
                    .invoke(e -> LOG.warnf("projection write failed, retrying: %s", e.toString()))
                    .onFailure()
                    .retry()
                    .withBackOff(Duration.ofMillis(200), Duration.ofSeconds(5))
                    .atMost(WRITE_ATTEMPTS))
        .invoke(changes -> metrics.recordBatch(records, changes, rejections.size()))
        // Effects of the committed batch: the gate as a Kubernetes node label, where enabled.
        .call(changes -> gateLabels.mirror(changes.nodes()))
        .chain(() -> Uni.createFrom().completionStage(batch.ack()))
        .onFailure()
        .recoverWithUni(
            failure -> {
              LOG.errorf(failure, "batch of %d records could not be projected", records);
              return Uni.createFrom().completionStage(batch.nack(failure));
            });
  }
}
