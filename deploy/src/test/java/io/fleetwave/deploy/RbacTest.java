package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Least privilege: exactly the rules the code needs (control-plane's ControlPlaneRbacTest derives
 * them from the calls the code makes), no wildcard anywhere.
 */
class RbacTest {
  /** The component that turns the kubernetes-job driver executor on, with its Job grant. */
  static final String JOB_EXECUTOR = "control-plane/components/kubernetes-job-executor";

  private final Rendered install = Kustomize.render("install");

  @Test
  void controlPlaneClusterRoleGrantsExactlyNodesPodsEvictionsAndTokenReviews() {
    ClusterRole role = install.one(ClusterRole.class, ControlPlaneTest.NAME);
    assertThat(Rules.of(role.getRules()))
        .containsExactlyInAnyOrder(
            new Rules.Rule("", "nodes", "get"),
            new Rules.Rule("", "nodes", "patch"),
            new Rules.Rule("", "pods", "list"),
            new Rules.Rule("", "pods", "watch"),
            new Rules.Rule("", "pods/eviction", "create"),
            new Rules.Rule("authentication.k8s.io", "tokenreviews", "create"));
  }

  @Test
  void withoutTheKubernetesJobExecutorTheControlPlaneMayCreateNoJobAnywhere() {
    List<PolicyRule> rules = new ArrayList<>();
    install.all(Role.class).forEach(r -> rules.addAll(r.getRules()));
    install.all(ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    assertThat(rules)
        .as("the install's driver executor is none: no rule may grant Jobs (or any pod creation)")
        .noneMatch(
            r ->
                r.getResources().contains("jobs")
                    || (r.getResources().contains("pods") && r.getVerbs().contains("create")));
    assertThat(ControlPlaneTest.envOf(install.one(Deployment.class, ControlPlaneTest.NAME)))
        .containsEntry("FLEETWAVE_ROLLOUT_DRIVER_EXECUTOR", "none")
        .doesNotContainKey("FLEETWAVE_ROLLOUT_DRIVER_JOB_TEMPLATE");
  }

  @Test
  void theKubernetesJobExecutorComponentGrantsCreateAndGetOnJobsOnlyInTheControlPlanesNamespace(
      @TempDir Path workspace) {
    Rendered withJobs =
        Kustomize.render(ComponentOverlay.write(workspace, "install", List.of(JOB_EXECUTOR)));
    Role role = withJobs.one(Role.class, "fleetwave-control-plane-driver-jobs");
    assertThat(Rules.of(role.getRules()))
        .containsExactlyInAnyOrder(
            new Rules.Rule("batch", "jobs", "create"), new Rules.Rule("batch", "jobs", "get"));
    String namespace =
        withJobs.one(Deployment.class, ControlPlaneTest.NAME).getMetadata().getNamespace();
    assertThat(role.getMetadata().getNamespace()).isEqualTo(namespace);
    RoleBinding binding = withJobs.one(RoleBinding.class, "fleetwave-control-plane-driver-jobs");
    assertThat(binding.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getSubjects())
        .extracting(Subject::getKind, Subject::getName, Subject::getNamespace)
        .containsExactly(tuple("ServiceAccount", ControlPlaneTest.NAME, namespace));
    Map<String, String> env =
        ControlPlaneTest.envOf(withJobs.one(Deployment.class, ControlPlaneTest.NAME));
    assertThat(env)
        .containsEntry("FLEETWAVE_ROLLOUT_DRIVER_EXECUTOR", "kubernetes-job")
        .containsEntry(
            "FLEETWAVE_ROLLOUT_DRIVER_JOB_TEMPLATE", "/etc/fleetwave/driver-job/job.yaml");
  }

  @Test
  void controlPlaneClusterRoleIsBoundToItsServiceAccountOnly() {
    ClusterRoleBinding binding = install.one(ClusterRoleBinding.class, ControlPlaneTest.NAME);
    assertThat(binding.getRoleRef().getName()).isEqualTo(ControlPlaneTest.NAME);
    ServiceAccount account = install.one(ServiceAccount.class, ControlPlaneTest.NAME);
    assertThat(binding.getSubjects())
        .extracting(Subject::getKind, Subject::getName, Subject::getNamespace)
        .containsExactly(
            tuple("ServiceAccount", ControlPlaneTest.NAME, account.getMetadata().getNamespace()));
  }

  static Stream<Path> everyKustomization() {
    return Kustomize.kustomizations().stream();
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void noRoleOrClusterRoleGrantsAWildcardOrAPrivilegeEscalatingVerb(Path dir) {
    Rendered rendered = Kustomize.render(dir);
    List<String> offending = new ArrayList<>();
    List<PolicyRule> rules = new ArrayList<>();
    rendered.all(Role.class).forEach(r -> rules.addAll(r.getRules()));
    rendered.all(ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    for (PolicyRule rule : rules) {
      List<String> all = new ArrayList<>();
      Stream.of(
              rule.getApiGroups(),
              rule.getResources(),
              rule.getVerbs(),
              rule.getResourceNames(),
              rule.getNonResourceURLs())
          .filter(l -> l != null)
          .forEach(all::addAll);
      if (all.stream().anyMatch(s -> s.contains("*"))) {
        offending.add("wildcard in " + rule);
      }
      if (rule.getVerbs().stream()
          .anyMatch(v -> List.of("escalate", "bind", "impersonate").contains(v))) {
        offending.add("escalating verb in " + rule);
      }
      if (rule.getResources() != null && rule.getResources().contains("secrets")) {
        offending.add("secrets in " + rule);
      }
    }
    assertThat(offending).as("%s", dir).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everyBindingBindsAServiceAccountDeployedAlongsideInItsNamespace(Path dir) {
    Rendered rendered = Kustomize.render(dir);
    List<Subject> subjects = new ArrayList<>();
    rendered.all(RoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    rendered.all(ClusterRoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    assertThat(subjects)
        .allSatisfy(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              if (controlPlaneFromElsewhere(rendered, s)) {
                // agent/shared's RoleBinding lets the control plane read the agents' pods
                // (enrolment): it names the account deploy/control-plane renders.
                assertThat(s.getNamespace()).isEqualTo("fleetwave");
                return;
              }
              ServiceAccount account = rendered.one(ServiceAccount.class, s.getName());
              assertThat(s.getNamespace()).isEqualTo(account.getMetadata().getNamespace());
            });
  }

  /** The control plane's account named by a binding of a kustomization that does not render it. */
  static boolean controlPlaneFromElsewhere(Rendered rendered, Subject subject) {
    return subject.getName().equals("fleetwave-control-plane")
        && rendered.all(ServiceAccount.class).stream()
            .noneMatch(a -> a.getMetadata().getName().equals(subject.getName()));
  }
}
