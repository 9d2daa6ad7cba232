package io.fleetwave.controlplane.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What Fleetwave keeps on a Kubernetes node while it changes it: the cordon (and who holds it), the
 * GPU Operator's labels, and the labels' values from before, so that every pause is undone to what
 * it was. Works on copies of a node's labels and annotations, so it needs no server; the values
 * from before live on the node itself ({@value #LABELS_BEFORE}, written in the same patch as the
 * labels), so a control plane that takes over after a crash restores what was there, not what it
 * finds.
 *
 * <ul>
 *   <li>{@value #CORDONED_BY}: {@code rollout/<id>} when Fleetwave cordoned the node. A node that
 *       was cordoned by anyone else (another rollout included) is never uncordoned.
 *   <li>{@value #UPGRADE_SKIP}{@code =true} from the cordon until the node is done, so the GPU
 *       Operator's driver upgrade controller keeps off it; removed after unless it was there.
 *   <li>for a MIG change: {@value #MIG_CONFIG} (the layout's name), {@value #MIG_CONFIG_STATE}
 *       (pending, rebooting, then success or failed), and {@value #DEPLOY_PREFIX}{@code
 *       <operand>=}{@value #PAUSED} for each operand deployed ({@code true}) on the node, each set
 *       back to its value after, on failure too.
 * </ul>
 */
final class NodeMarks {
  static final String CORDONED_BY = "fleetwave.io/cordoned-by";
  static final String LABELS_BEFORE = "fleetwave.io/labels-before";
  static final String MIG_CONFIG = "nvidia.com/mig.config";
  static final String MIG_CONFIG_STATE = "nvidia.com/mig.config.state";
  static final String DEPLOY_PREFIX = "nvidia.com/gpu.deploy.";
  static final String PAUSED = "paused-for-mig-change";
  static final String UPGRADE_SKIP = "nvidia.com/gpu-driver-upgrade.skip";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  private final boolean wasUnschedulable;
  private boolean unschedulable;

  NodeMarks(Map<String, String> labels, Map<String, String> annotations, boolean unschedulable) {
    this.labels = new HashMap<>(Objects.requireNonNullElse(labels, Map.of()));
    this.annotations = new HashMap<>(Objects.requireNonNullElse(annotations, Map.of()));
    this.wasUnschedulable = unschedulable;
    this.unschedulable = unschedulable;
  }

  /**
   * Cordons the node for {@code owner} ({@code rollout/<id>}), unless someone else already did.
   *
   * @return whether someone else had cordoned it (it then stays cordoned after the change)
   */
  boolean cordon(String owner) {
    if (unschedulable && !owner.equals(annotations.get(CORDONED_BY))) {
      return true;
    }
    unschedulable = true;
    annotations.put(CORDONED_BY, owner);
    return false;
  }

  /** Uncordons the node if {@code owner} holds its cordon; whether it did. */
  boolean uncordon(String owner) {
    if (!owner.equals(annotations.get(CORDONED_BY))) {
      return false;
    }
    unschedulable = false;
    annotations.remove(CORDONED_BY);
    return true;
  }

  /** Keeps the GPU Operator's driver upgrade controller off the node. */
  void holdUpgrades() {
    remember(UPGRADE_SKIP);
    labels.put(UPGRADE_SKIP, "true");
  }

  /**
   * A MIG change starts: the config it applies (null: none, the label goes), state pending, and
   * each operand deployed on the node paused.
   *
   * @return the operands paused, in the given order
   */
  List<String> pauseForMigChange(String migConfig, List<String> operands) {
    remember(MIG_CONFIG);
    remember(MIG_CONFIG_STATE);
    set(MIG_CONFIG, migConfig);
    labels.put(MIG_CONFIG_STATE, "pending");
    Map<String, String> before = before();
    List<String> paused = new ArrayList<>();
    for (String operand : operands) {
      String key = DEPLOY_PREFIX + operand;
      // Paused already by an earlier try of this change: what counts is the value from before.
      String deployed = before.containsKey(key) ? before.get(key) : labels.get(key);
      if ("true".equals(deployed)) {
        remember(key);
        labels.put(key, PAUSED);
        paused.add(operand);
      }
    }
    return paused;
  }

  /** The MIG state, when this change manages it (rebooting); otherwise nothing. */
  void migState(String state) {
    if (before().containsKey(MIG_CONFIG_STATE)) {
      labels.put(MIG_CONFIG_STATE, state);
    }
  }

  /** The node's MIG config before this change, or null (none, or no MIG change). */
  String migConfigBefore() {
    return before().get(MIG_CONFIG);
  }

  /**
   * Sets every label this change touched back to its value from before, except the MIG config,
   * which keeps the layout the node was moved to, and the MIG state, which ends as {@code migState}
   * (success or failed) when the change managed it.
   *
   * @return the operands set back, sorted
   */
  List<String> restore(String migState) {
    List<String> restored = new ArrayList<>();
    for (Map.Entry<String, String> entry : before().entrySet()) {
      String key = entry.getKey();
      if (key.equals(MIG_CONFIG)) {
        continue;
      }
      if (key.equals(MIG_CONFIG_STATE)) {
        labels.put(key, migState);
        continue;
      }
      set(key, entry.getValue());
      if (key.startsWith(DEPLOY_PREFIX)) {
        restored.add(key.substring(DEPLOY_PREFIX.length()));
      }
    }
    annotations.remove(LABELS_BEFORE);
    restored.sort(null);
    return restored;
  }

  boolean unschedulable() {
    return unschedulable;
  }

  /** Whether the cordon changed here (so the node's spec needs writing). */
  boolean cordonChanged() {
    return unschedulable != wasUnschedulable;
  }

  /** Who holds the cordon, as recorded by Fleetwave, or null. */
  String cordonedBy() {
    return annotations.get(CORDONED_BY);
  }

  Map<String, String> labels() {
    return labels;
  }

  Map<String, String> annotations() {
    return annotations;
  }

  /** Records a label's value before its first change by Fleetwave (null: it was absent). */
  private void remember(String key) {
    Map<String, String> before = before();
    if (!before.containsKey(key)) {
      before.put(key, labels.get(key));
      try {
        annotations.put(LABELS_BEFORE, JSON.writeValueAsString(before));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot write " + LABELS_BEFORE, e);
      }
    }
  }

  private Map<String, String> before() {
    String json = annotations.get(LABELS_BEFORE);
    if (json == null || json.isBlank()) {
      return new LinkedHashMap<>();
    }
    try {
      return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "the node's " + LABELS_BEFORE + " annotation is not a JSON object of strings: " + json,
          e);
    }
  }

  private void set(String key, String value) {
    if (value == null) {
      labels.remove(key);
    } else {
      labels.put(key, value);
    }
  }
}
