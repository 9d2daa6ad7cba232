package io.fleetwave.controlplane.rollout.driver;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Hands each driver change to a Kubernetes Job ({@code kubernetes-job}) rendered from a {@link
 * DriverJobTemplate}, in {@code fleetwave.rollout.driver-job.namespace} (default: the client's
 * namespace). The Job's name comes from the request id ({@link DriverJobNames}), so a repeated
 * request finds its Job already there and is a no-op. Its annotations carry the request id, the
 * rollout and the node. Each request is bounded by {@code fleetwave.rollout.driver-job.timeout}
 * (and every API call by the client's request timeout).
 */
public final class KubernetesJobDriverExecutor implements DriverChangeExecutor {
  public static final String NAME = "kubernetes-job";
  public static final String REQUEST_ID = "fleetwave.io/driver-request-id";
  public static final String NODE = "fleetwave.io/node";
  public static final String ROLLOUT = "fleetwave.io/rollout";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  private final KubernetesClient client;
  private final DriverJobTemplate template;
  private final String namespace;
  private final Duration timeout;

  public KubernetesJobDriverExecutor(
      KubernetesClient client, DriverJobTemplate template, String namespace, Duration timeout) {
    this.client = Objects.requireNonNull(client, "client");
    this.template = Objects.requireNonNull(template, "template");
    this.namespace =
        namespace != null && !namespace.isBlank()
            ? namespace
            : Objects.requireNonNullElse(client.getNamespace(), "default");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  @Override
  public String name() {
    return NAME;
  }

  public String namespace() {
    return namespace;
  }

  /** The name of the Job a request creates. */
  public static String jobName(DriverChangeRequest request) {
    return DriverJobNames.of(request);
  }

  @Override
  public Uni<Void> request(DriverChangeRequest request) {
    return Uni.createFrom()
        .item(() -> create(request))
        // fabric8 calls block: off the event loop.
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new TimeoutException())
        .onFailure(failure -> !(failure instanceof DriverChangeException))
        .transform(failure -> failed(request, failure))
        .replaceWithVoid();
  }

  private Job create(DriverChangeRequest request) {
    Job job;
    try {
      job = template.render(request);
    } catch (IllegalArgumentException e) {
      throw new DriverChangeException(NAME, request, e.getMessage(), e);
    }
    String name = jobName(request);
    ObjectMeta meta = job.getMetadata() == null ? new ObjectMeta() : job.getMetadata();
    meta.setName(name);
    meta.setGenerateName(null);
    meta.setNamespace(namespace);
    Map<String, String> labels =
        new HashMap<>(Objects.requireNonNullElse(meta.getLabels(), Map.of()));
    labels.put(MANAGED_BY, "fleetwave");
    labels.put(ROLLOUT, request.rolloutId().toString());
    meta.setLabels(labels);
    Map<String, String> annotations =
        new HashMap<>(Objects.requireNonNullElse(meta.getAnnotations(), Map.of()));
    annotations.put(REQUEST_ID, request.id());
    annotations.put(NODE, request.node());
    meta.setAnnotations(annotations);
    job.setMetadata(meta);
    try {
      return client.batch().v1().jobs().inNamespace(namespace).resource(job).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return existing(request, name);
      }
      throw new DriverChangeException(
          NAME,
          request,
          "the Kubernetes API refused Job "
              + namespace
              + "/"
              + name
              + " (HTTP "
              + e.getCode()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /** A Job of that name exists: a repeat of this request (fine), or a clash (a failure). */
  private Job existing(DriverChangeRequest request, String name) {
    Job found = client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    String owner =
        found == null || found.getMetadata().getAnnotations() == null
            ? null
            : found.getMetadata().getAnnotations().get(REQUEST_ID);
    if (request.id().equals(owner)) {
      return found;
    }
    throw new DriverChangeException(
        NAME,
        request,
        "Job "
            + namespace
            + "/"
            + name
            + " already exists for "
            + (owner == null ? "no Fleetwave request" : "request " + owner));
  }

  private DriverChangeException failed(DriverChangeRequest request, Throwable failure) {
    String reason =
        failure instanceof TimeoutException
            ? "no answer from the Kubernetes API within " + timeout
            : "cannot create the Job in namespace " + namespace + ": " + failure;
    return new DriverChangeException(NAME, request, reason, failure);
  }
}
