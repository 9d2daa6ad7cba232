package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class RenderTest {
  private static JsonNode json(String text) throws Exception {
    return Fleetctl.JSON.readTree(text);
  }

  @Test
  void aPlanShowsEachNodeWithItsWaveBatchAndActions() throws Exception {
    JsonNode plan =
        json(
            """
            {"name": "h100", "plannedNodes": 2, "maxUnavailableNodes": 1,
             "change": {"migConfig": "all-1g.10gb", "driverVersion": null},
             "waves": [
               {"number": 1, "waveSpec": "1", "canary": true, "cumulativeNodes": 1, "batches": [
                 {"number": 1, "zones": ["a"], "nodes": [{"node": "n1", "hostKind": "ubuntu", "zone": "a",
                   "gpuChanges": [{"gpuIndex": 0, "model": "H100-80GB", "fromMode": "disabled",
                     "toMigEnabled": true, "from": [],
                     "to": [{"profile": "1g.10gb"}, {"profile": "1g.10gb"}],
                     "resetNeeded": true, "vfsTouched": 0}],
                   "driver": null, "resetNeeded": true, "vfsTouched": 0}]}]},
               {"number": 2, "waveSpec": "100%", "canary": false, "cumulativeNodes": 2, "batches": [
                 {"number": 1, "zones": ["b"], "nodes": [{"node": "n2", "hostKind": "talos", "zone": "b",
                   "gpuChanges": [],
                   "driver": {"fromVersion": "570.1", "toVersion": "580.2", "osUpgradeNeeded": true},
                   "resetNeeded": false, "vfsTouched": 0}]}]}],
             "excluded": [{"node": "n3", "reason": "no-mig-capable-gpu", "detail": "T4 only"}],
             "capacity": [{"gpuModel": "H100-80GB", "gpus": 1, "peakGpusUnavailable": 1,
               "instancesBefore": {}, "instancesAfter": {"1g.10gb": 2}}]}
            """);
    String text = RolloutCommand.renderPlan(plan);
    assertThat(text)
        .startsWith(
            "plan h100: 2 node(s) in 2 wave(s), change mig all-1g.10gb, maxUnavailable 1 node(s)\n");
    assertThat(text)
        .contains(
            """
            WAVE       SPEC   NODES   CUMULATIVE   BATCHES   ZONES
            1 canary   1      1       1            1         a
            2          100%   1       2            1         b
            """)
        .contains(
            "1 canary   1       n1     ubuntu      a      gpu0 H100-80GB: disabled -> 1g.10gb x2"
                + " (reset)")
        .contains(
            "2          1       n2     talos       b      driver 570.1 -> 580.2 (OS image upgrade)")
        .contains("n3         no-mig-capable-gpu   T4 only")
        .contains("H100-80GB   1      1                   -                  1g.10gb:2");
  }

  @Test
  void gpusWithTheSameChangeAreShownTogether() throws Exception {
    JsonNode node =
        json(
            """
            {"gpuChanges": [
              {"gpuIndex": 0, "model": "A100", "fromMode": "disabled", "toMigEnabled": true,
               "from": [], "to": [{"profile": "3g.20gb"}], "resetNeeded": true},
              {"gpuIndex": 1, "model": "A100", "fromMode": "disabled", "toMigEnabled": true,
               "from": [], "to": [{"profile": "3g.20gb"}], "resetNeeded": true},
              {"gpuIndex": 2, "model": "A100", "fromMode": "disabled", "toMigEnabled": true,
               "from": [], "to": [{"profile": "3g.20gb"}], "resetNeeded": true},
              {"gpuIndex": 3, "model": "A100", "fromMode": "enabled", "toMigEnabled": false,
               "from": [{"profile": "7g.40gb"}], "to": [], "resetNeeded": true},
              {"gpuIndex": 5, "model": "A100", "fromMode": "disabled", "toMigEnabled": true,
               "from": [], "to": [{"profile": "3g.20gb"}], "resetNeeded": true}],
             "vfsTouched": 2}
            """);
    assertThat(RolloutCommand.actions(node))
        .isEqualTo(
            "gpu0-2,5 A100: disabled -> 3g.20gb x1 (reset); gpu3 A100: 7g.40gb x1 -> MIG off"
                + " (reset); 2 VF(s) disturbed");
  }

  @Test
  void aPlanShowsItsGpuBudgetAndPerWaveGpusOfflineAndExpectedDuration() throws Exception {
    JsonNode plan =
        json(
            """
            {"name": "budget", "plannedNodes": 6, "maxUnavailableNodes": 4,
             "change": {"migConfig": null, "driverVersion": "580.95.05"},
             "strategy": {"maxGpusOffline": 18, "maxGpusOfflinePer": {"team": 16}},
             "waves": [], "excluded": [], "capacity": [],
             "forecasts": [
               {"wave": 1, "peakGpusOffline": 18,
                "peakGpusOfflineByZone": {"z1": 18},
                "peakGpusOfflineByModel": {"H100-80GB": 16, "L40S": 2},
                "peakGpusOfflineByLabel": {"team": {"search": 16, "vision": 2}},
                "expectedSeconds": 1200, "unmeasuredKinds": ["ubuntu/L40S"],
                "defaultApplySeconds": 300},
               {"wave": 2, "peakGpusOffline": 8,
                "peakGpusOfflineByZone": {"z2": 8}, "peakGpusOfflineByModel": {"H100-80GB": 8},
                "peakGpusOfflineByLabel": {}, "expectedSeconds": 3900, "unmeasuredKinds": [],
                "defaultApplySeconds": 300}]}
            """);
    String text = RolloutCommand.renderPlan(plan);
    assertThat(text)
        .startsWith(
            "plan budget: 6 node(s) in 0 wave(s), change driver 580.95.05, maxUnavailable 4"
                + " node(s), maxGpusOffline 18, maxGpusOfflinePer team=16\n")
        .contains(
            "1      18             team=search:16 vision:2   z1:18      H100-80GB:16 L40S:2"
                + "   20m (1 kind(s) at the default)")
        .contains(
            "2      8              -                         z2:8       H100-80GB:8           1h05m")
        .contains(
            "no apply time measured in past rollouts for ubuntu/L40S: counted at the default 5m a"
                + " node");
  }

  @Test
  void aNodeWithAChangePendingShowsWhereItIsGoingNextToWhereItIs() throws Exception {
    JsonNode node =
        json(
            """
            {"gpuChanges": [
              {"gpuIndex": 0, "model": "A100", "fromMode": "disabled", "toMigEnabled": false,
               "from": [], "to": [], "resetNeeded": false}],
             "vfsTouched": 0,
             "pendingSpec": {"node": "n1", "generation": 3, "driverVersion": "570.86.15",
               "gpus": [{"index": 0, "migEnabled": true, "instances": {"1g.5gb": 7}}]}}
            """);
    assertThat(RolloutCommand.actions(node))
        .isEqualTo(
            "gpu0 A100: disabled -> MIG off; change pending: generation 3 wants gpu0 1g.5gb x7,"
                + " driver 570.86.15");
  }

  @Test
  void waveLinesShowEachWavesCountsFromTheSummary() throws Exception {
    JsonNode summary =
        json(
            """
            {"name": "r", "state": "running", "currentWave": 2, "awaitingPromotion": false,
             "statusReason": null, "pausedBy": null,
             "waves": [
               {"index": 1, "nodes": 1,
                "counts": {"pending": 0, "in-flight": 0, "succeeded": 1, "failed": 0}},
               {"index": 2, "nodes": 4,
                "counts": {"pending": 1, "in-flight": 1, "succeeded": 1, "failed": 1}}]}
            """);
    assertThat(RolloutCommand.waveLines(summary))
        .containsExactly(
            "wave 1/2 [####################] 1/1  succeeded 1",
            "wave 2/2 [##########----------] 2/4  pending 1, in-flight 1, succeeded 1, failed 1");
    assertThat(RolloutCommand.stateLine(summary)).isEqualTo("rollout r running, wave 2/2");
  }

  @Test
  void statusShowsWhoPausedItAndTheNodesInFlightOrFailedWithWhatIsLeftOut() throws Exception {
    JsonNode summary =
        json(
            """
            {"id": "r-1", "name": "r", "state": "paused", "actor": "alice",
             "change": {"migConfig": "all-balanced", "driverVersion": null},
             "currentWave": 1, "awaitingPromotion": false, "pausedBy": "system",
             "statusReason": "1 of 1 failed", "failures": 1,
             "counts": {"pending": 3, "in-flight": 0, "succeeded": 0, "failed": 1},
             "waves": [
               {"index": 1, "nodes": 1,
                "counts": {"pending": 0, "in-flight": 0, "succeeded": 0, "failed": 1}},
               {"index": 2, "nodes": 3,
                "counts": {"pending": 3, "in-flight": 0, "succeeded": 0, "failed": 0}}]}
            """);
    JsonNode unusual =
        json(
            """
            {"items": [{"node": "a", "wave": 1, "phase": "forward", "state": "failed",
                        "reason": "GPU 0 unhealthy"}],
             "page": 0, "size": 1, "total": 3}
            """);
    assertThat(RolloutCommand.renderStatus(summary, unusual))
        .contains(
            "state:   paused (1 of 1 failed)\n",
            "change:  mig all-balanced\n",
            "by:      alice\n",
            "nodes:   pending 3, in-flight 0, succeeded 0, failed 1\n",
            "rollout r paused, wave 1/2, paused by system (1 of 1 failed)\n",
            "wave 2/2 [--------------------] 0/3  pending 3\n",
            "GPU 0 unhealthy",
            "... and 2 more: fleetctl rollout nodes r-1 --state in-flight,failed\n");
  }

  @Test
  void aNodeRowSummarisesGpusAndMigModes() throws Exception {
    JsonNode nodes =
        json(
            """
            [{"name": "n1", "hostKind": "cos", "zone": "z", "driverVersion": "580",
              "converged": true, "lastSeen": "2026-11-30T10:00:00Z",
              "gpus": [{"product": "H100", "migCapable": true, "migMode": "enabled"},
                       {"product": "H100", "migCapable": true, "migMode": "disabled"},
                       {"product": "T4", "migCapable": false, "migMode": "unsupported"}]}]
            """);
    assertThat(NodesCommand.nodesTable(nodes).render())
        .isEqualTo(
            """
            NAME   HOST-KIND   ZONE   DRIVER   GPUS             MIG                    CONVERGED   LAST-SEEN
            n1     cos         z      580      2x H100, 1x T4   disabled:1,enabled:1   yes         2026-11-30T10:00:00Z
            """);
  }
}
