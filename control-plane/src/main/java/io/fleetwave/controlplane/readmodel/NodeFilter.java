package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.core.selector.LabelSelectorException;
import io.fleetwave.core.selector.Requirement;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.HostKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The filters of GET /api/v1/nodes, validated, and their translation to a SQL condition over {@code
 * nodes n} with positional parameters. Labels live in a jsonb column; {@code @>} uses its GIN
 * index.
 */
public record NodeFilter(HostKind hostKind, String gpuModel, LabelSelector selector) {
  private static final Pattern PCI_ID = Pattern.compile("0[xX][0-9A-Fa-f]{8}");

  /** A WHERE clause (without the keyword) and its parameters, $1 onwards. */
  public record Condition(String sql, List<Object> params) {
    /** This condition and the node's reported zone equal to {@code zone}; unchanged when blank. */
    public Condition inZone(String zone) {
      if (zone == null || zone.isBlank()) {
        return this;
      }
      List<Object> withZone = new ArrayList<>(params);
      withZone.add(zone);
      return new Condition("(" + sql + ") AND n.zone = $" + withZone.size(), withZone);
    }
  }

  public static NodeFilter parse(String hostKind, String gpuModel, String selector) {
    HostKind kind = null;
    if (hostKind != null && !hostKind.isEmpty()) {
      try {
        kind = WireNamed.parse(HostKind.class, hostKind);
      } catch (IllegalArgumentException e) {
        throw ProblemException.badRequest(
            "bad-host-kind", "Invalid hostKind", "query parameter 'hostKind': " + e.getMessage());
      }
    }
    String model = null;
    if (gpuModel != null && !gpuModel.isEmpty()) {
      if (!PCI_ID.matcher(gpuModel).matches()) {
        throw ProblemException.badRequest(
            "bad-gpu-model",
            "Invalid gpuModel",
            "query parameter 'gpuModel' must be a PCI device id with vendor like 0x233010DE, got '"
                + gpuModel
                + "'");
      }
      model = "0x" + gpuModel.substring(2).toUpperCase(Locale.ROOT);
    }
    LabelSelector labels;
    try {
      labels = LabelSelector.parse(selector);
    } catch (LabelSelectorException e) {
      throw ProblemException.badRequest("bad-selector", "Invalid label selector", e.getMessage());
    }
    return new NodeFilter(kind, model, labels);
  }

  /**
   * Whether {@code node}, in {@code zone} when that is not blank, passes the filter: what {@link
   * #toSql} and {@link Condition#inZone} ask of its row, over a node held in memory.
   */
  public boolean matches(NodeView node, String zone) {
    if (zone != null && !zone.isBlank() && !zone.equals(node.facts().zone())) {
      return false;
    }
    if (hostKind != null && !hostKind.wireName().equals(node.facts().hostKind())) {
      return false;
    }
    if (gpuModel != null
        && node.gpus().stream().noneMatch(gpu -> gpu.pciDeviceId().equalsIgnoreCase(gpuModel))) {
      return false;
    }
    return selector.matches(node.facts().labels());
  }

  public Condition toSql() {
    List<String> clauses = new ArrayList<>();
    List<Object> params = new ArrayList<>();
    if (hostKind != null) {
      params.add(hostKind.wireName());
      clauses.add("n.host_kind = $" + params.size());
    }
    if (gpuModel != null) {
      params.add(gpuModel);
      clauses.add(
          "EXISTS (SELECT 1 FROM gpus g WHERE g.node = n.name AND upper(g.pci_device_id) = upper($"
              + params.size()
              + "))");
    }
    for (Requirement requirement : selector.requirements()) {
      clauses.add(labelClause(requirement, params));
    }
    return new Condition(clauses.isEmpty() ? "TRUE" : String.join(" AND ", clauses), params);
  }

  private static String labelClause(Requirement requirement, List<Object> params) {
    return switch (requirement) {
      case Requirement.Equals eq ->
          "n.labels @> " + param(params, containment(eq.key(), eq.value()));
      case Requirement.NotEquals ne ->
          "NOT (n.labels @> " + param(params, containment(ne.key(), ne.value())) + ")";
      case Requirement.In in -> oneOf(params, in.key(), in.values());
      // A node without the label is not in the set, so notin picks it: the null counts as false.
      case Requirement.NotIn notIn ->
          "NOT coalesce(" + oneOf(params, notIn.key(), notIn.values()) + ", false)";
      case Requirement.Exists exists ->
          "(n.labels ->> " + param(params, exists.key()) + ") IS NOT NULL";
      case Requirement.NotExists absent ->
          "(n.labels ->> " + param(params, absent.key()) + ") IS NULL";
    };
  }

  /** The label's value is one of {@code values}; null for a node without the label. */
  private static String oneOf(List<Object> params, String key, List<String> values) {
    return "(n.labels ->> "
        + param(params, key)
        + ") = ANY("
        + param(params, values.toArray(String[]::new))
        + "::text[])";
  }

  private static String param(List<Object> params, Object value) {
    params.add(value);
    return "$" + params.size();
  }

  private static io.vertx.core.json.JsonObject containment(String key, String value) {
    return new io.vertx.core.json.JsonObject(Map.of(key, value));
  }
}
