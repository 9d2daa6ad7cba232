package io.fleetwave.controlplane.projection;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.KafkaConsumer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Gauge of the projection consumer's lag: records behind the log end, summed over its partitions,
 * from the Kafka client's own per-partition {@code records-lag} metric. NaN until the consumer has
 * fetched once.
 */
@Startup
@ApplicationScoped
public class ConsumerLag {
  public ConsumerLag(KafkaClientService clients, MeterRegistry registry) {
    Gauge.builder("fleetwave.projection.consumer.lag", clients, ConsumerLag::records)
        .description("Records of fleet.node-events not yet consumed by the projection")
        .baseUnit("records")
        .register(registry);
  }

  // Static, on the client service: the gauge holds no reference to a half-built bean.
  static double records(KafkaClientService clients) {
    List<KafkaConsumer<Object, Object>> consumers =
        clients.getConsumers(NodeEventsConsumer.CHANNEL);
    if (consumers == null || consumers.isEmpty()) {
      return Double.NaN;
    }
    double lag = 0;
    boolean seen = false;
    // One consumer per configured partition stream (the channel's partitions attribute).
    for (KafkaConsumer<Object, Object> consumer : consumers) {
      for (var entry : consumer.unwrap().metrics().entrySet()) {
        MetricName name = entry.getKey();
        if (name.name().equals("records-lag") && name.tags().containsKey("partition")) {
          Metric metric = entry.getValue();
          if (metric.metricValue() instanceof Double value && !value.isNaN()) {
            lag += value;
            seen = true;
          }
        }
      }
    }
    return seen ? lag : Double.NaN;
  }
}
