package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two namespaces, any names: the control plane's (Pod Security "restricted") and the agents'
 * ("privileged"), and every value that names one of them follows it, not only metadata.namespace.
 */
class NamespacesTest {
  static final String CONTROL_PLANE = "fleetwave";
  static final String AGENTS = "fleetwave-agents";
  private static final String POD_SECURITY = "pod-security.kubernetes.io/enforce";

  @Test
  void deployNamespaceCreatesARestrictedNamespaceForTheInstallAndAPrivilegedOneForTheAgents() {
    Rendered namespaces = Kustomize.render("namespace");
    assertThat(namespaces.names())
        .containsExactlyInAnyOrder("Namespace/" + CONTROL_PLANE, "Namespace/" + AGENTS);
    Namespace controlPlane = namespaces.one(Namespace.class, CONTROL_PLANE);
    assertThat(controlPlane.getMetadata().getLabels())
        .containsEntry(POD_SECURITY, "restricted")
        .containsEntry("pod-security.kubernetes.io/warn", "restricted")
        .containsEntry("pod-security.kubernetes.io/audit", "restricted");
    assertThat(namespaces.one(Namespace.class, AGENTS).getMetadata().getLabels())
        .containsEntry(POD_SECURITY, "privileged");

    assertThat(namespacesOf(Kustomize.render("install"))).containsExactly(CONTROL_PLANE);
    assertThat(namespacesOf(AgentOverlay.shared())).containsExactly(AGENTS);
    for (HostKind kind : HostKind.values()) {
      assertThat(namespacesOf(AgentOverlay.of(kind).rendered())).containsExactly(AGENTS);
    }
  }

  /** Deleting the install must never delete a namespace, and the database volumes with it. */
  @Test
  void noKustomizationButDeployNamespaceCreatesANamespace() {
    for (Path dir : Kustomize.kustomizations()) {
      if (!dir.equals(Kustomize.deployDir().resolve("namespace"))) {
        assertThat(Kustomize.render(dir).all(Namespace.class)).as("%s", dir).isEmpty();
      }
    }
  }

  @Test
  void theControlPlaneAcceptsEnrolmentTokensOfTheAgentsServiceAccountInTheAgentsNamespace() {
    ServiceAccount agents = AgentOverlay.shared().one(ServiceAccount.class, "fleetwave-agent");
    assertThat(
            controlPlaneEnv(
                Kustomize.render("install"), "FLEETWAVE_NODE_IDENTITY_SERVICE_ACCOUNTS"))
        .isEqualTo(
            "system:serviceaccount:"
                + agents.getMetadata().getNamespace()
                + ":"
                + agents.getMetadata().getName());
  }

  @Test
  void theAgentsEnrolAtTheControlPlanesServiceInTheControlPlanesNamespace() {
    Service service = Kustomize.render("install").one(Service.class, ControlPlaneTest.NAME);
    int port =
        service.getSpec().getPorts().stream()
            .filter(p -> p.getName().equals("http"))
            .findFirst()
            .orElseThrow()
            .getPort();
    for (HostKind kind : HostKind.values()) {
      assertThat(AgentOverlay.of(kind).envValue("FLEETWAVE_CONTROL_PLANE_URL"))
          .isEqualTo(
              "http://%s.%s.svc:%d",
              service.getMetadata().getName(), service.getMetadata().getNamespace(), port);
    }
  }

  /**
   * deploy/README.md "Changing names", exactly as written there (ChangingNamesOverlay reads its
   * files), with namespaces of our own: every namespace the render names is one of ours, and none
   * of the defaults is left in a namespace field, an RBAC subject, an environment value, a DNS
   * name, a service-account name or a NetworkPolicy's namespace selector. Object names stay.
   */
  @Test
  void theDocumentedOverlayMovesEverythingIntoOtherNamespaces(@TempDir Path workspace)
      throws IOException {
    Map<String, String> names =
        Map.of(
            "control-plane", "gpu-control",
            "agents", "gpu-agents",
            "monitoring", "prometheus",
            "cnpg-operator", "postgres-operator");
    ChangingNamesOverlay overlay = ChangingNamesOverlay.write(workspace, names);
    String controlPlane = names.get("control-plane");
    String agents = names.get("agents");

    Rendered namespaces = Kustomize.render(overlay.namespace());
    assertThat(namespaces.one(Namespace.class, controlPlane).getMetadata().getLabels())
        .containsEntry(POD_SECURITY, "restricted");
    assertThat(namespaces.one(Namespace.class, agents).getMetadata().getLabels())
        .containsEntry(POD_SECURITY, "privileged");

    Rendered install = Kustomize.render(overlay.install());
    assertThat(namespacesOf(install)).containsExactly(controlPlane);
    assertThat(controlPlaneEnv(install, "FLEETWAVE_NODE_IDENTITY_SERVICE_ACCOUNTS"))
        .isEqualTo("system:serviceaccount:" + agents + ":fleetwave-agent");

    Rendered shared = Kustomize.render(overlay.agentsShared());
    assertThat(namespacesOf(shared)).containsExactly(agents);

    List<Rendered> all = new ArrayList<>(List.of(namespaces, install, shared));
    for (HostKind kind : HostKind.values()) {
      Rendered rendered = Kustomize.render(overlay.agents(kind));
      assertThat(namespacesOf(rendered)).containsExactly(agents);
      DaemonSet daemonSet = rendered.all(DaemonSet.class).getFirst();
      Container agent = daemonSet.getSpec().getTemplate().getSpec().getContainers().getFirst();
      assertThat(env(agent, "FLEETWAVE_CONTROL_PLANE_URL"))
          .isEqualTo("http://fleetwave-control-plane." + controlPlane + ".svc:8080");
      assertThat(env(agent, "FLEETWAVE_KAFKA_BOOTSTRAP"))
          .isEqualTo("fleetwave-kafka-bootstrap." + controlPlane + ".svc:9093");
      all.add(rendered);
    }

    List<String> stale = new ArrayList<>();
    for (Rendered rendered : all) {
      subjectsOutsideTheirServiceAccountsNamespace(rendered, controlPlane, stale);
      for (NetworkPolicy policy : rendered.all(NetworkPolicy.class)) {
        NetworkPolicies.namespaceNames(policy).stream()
            .filter(n -> !Set.copyOf(names.values()).contains(n))
            .forEach(n -> stale.add(where(policy) + " selects the namespace " + n));
      }
      for (HasMetadata resource : rendered.resources()) {
        StaleNamespaces.in(resource).forEach(s -> stale.add(where(resource) + ": " + s));
      }
    }
    assertThat(stale).as("values still naming a default namespace").isEmpty();
  }

  private static void subjectsOutsideTheirServiceAccountsNamespace(
      Rendered rendered, String controlPlane, List<String> stale) {
    List<Subject> subjects = new ArrayList<>();
    rendered.all(RoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    rendered.all(ClusterRoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    for (Subject subject : subjects) {
      String namespace =
          RbacTest.controlPlaneFromElsewhere(rendered, subject)
              ? controlPlane
              : rendered.one(ServiceAccount.class, subject.getName()).getMetadata().getNamespace();
      if (!namespace.equals(subject.getNamespace())) {
        stale.add(
            "subject "
                + subject.getName()
                + " in "
                + subject.getNamespace()
                + ", not "
                + namespace);
      }
    }
  }

  static Set<String> namespacesOf(Rendered rendered) {
    Set<String> namespaces = new java.util.TreeSet<>();
    rendered.resources().stream()
        .map(r -> r.getMetadata().getNamespace())
        .filter(n -> n != null)
        .forEach(namespaces::add);
    return namespaces;
  }

  private static String controlPlaneEnv(Rendered install, String name) {
    Deployment deployment = install.one(Deployment.class, ControlPlaneTest.NAME);
    return env(deployment.getSpec().getTemplate().getSpec().getContainers().getFirst(), name);
  }

  private static String env(Container container, String name) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " has no " + name));
  }

  private static String where(HasMetadata resource) {
    return resource.getKind() + "/" + resource.getMetadata().getName();
  }
}
