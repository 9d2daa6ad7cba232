package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The overlays of deploy/README.md "Changing names", written out as an operator would: each fenced
 * YAML block there starts with the comment {@code # my-fleetwave/<file>} and refers to Fleetwave's
 * checkout as {@code ../../fleetwave/deploy/}, which here becomes the path to this deploy/.
 */
record ChangingNamesOverlay(Path root) {
  static final String CHECKOUT = "../../fleetwave/deploy/";
  static final String NAMES_FILE = "namespaces/namespaces.yaml";
  static final String AGENTS_EXAMPLE = "agents-ubuntu/kustomization.yaml";
  static final List<String> FILES =
      List.of(
          "namespaces/kustomization.yaml",
          NAMES_FILE,
          "namespace/kustomization.yaml",
          "install/kustomization.yaml",
          "agents/kustomization.yaml",
          AGENTS_EXAMPLE);

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern BLOCK =
      Pattern.compile("```yaml\\n# my-fleetwave/(\\S+)\\n(.*?)```", Pattern.DOTALL);

  /** Writes the README's files under {@code workspace/my-fleetwave}, with these namespace names. */
  static ChangingNamesOverlay write(Path workspace, Map<String, String> names) throws IOException {
    Map<String, String> files = readmeFiles();
    if (!files.keySet().containsAll(FILES)) {
      throw new AssertionError(
          "deploy/README.md \"Changing names\" should show the files "
              + FILES
              + " (each a ```yaml block starting with # my-fleetwave/<file>); it shows "
              + files.keySet());
    }
    Path root = workspace.resolve("my-fleetwave");
    String namesYaml = withNames(files.get(NAMES_FILE), names);
    write(root, NAMES_FILE, namesYaml);
    for (String file : FILES) {
      if (!file.equals(NAMES_FILE)) {
        write(root, file, files.get(file));
      }
    }
    String agents = files.get(AGENTS_EXAMPLE);
    if (!agents.contains("agent/overlays/ubuntu")) {
      throw new AssertionError(
          AGENTS_EXAMPLE + " in the README should apply agent/overlays/ubuntu");
    }
    for (HostKind kind : HostKind.values()) {
      write(
          root,
          "agents-" + kind.overlay + "/kustomization.yaml",
          agents.replace("agent/overlays/ubuntu", "agent/overlays/" + kind.overlay));
    }
    return new ChangingNamesOverlay(root);
  }

  Path namespace() {
    return root.resolve("namespace");
  }

  Path install() {
    return root.resolve("install");
  }

  Path agentsShared() {
    return root.resolve("agents");
  }

  Path agents(HostKind kind) {
    return root.resolve("agents-" + kind.overlay);
  }

  private static Map<String, String> readmeFiles() throws IOException {
    String readme = Files.readString(Kustomize.deployDir().resolve("README.md"));
    int start = readme.indexOf("\n## Changing names\n");
    if (start < 0) {
      throw new AssertionError("deploy/README.md has no section \"## Changing names\"");
    }
    int end = readme.indexOf("\n## ", start + 1);
    Matcher block = BLOCK.matcher(readme.substring(start, end < 0 ? readme.length() : end));
    Map<String, String> files = new LinkedHashMap<>();
    while (block.find()) {
      files.put(block.group(1), block.group(2));
    }
    return files;
  }

  /** The README's ConfigMap of names, its keys exactly ours, with our values. */
  private static String withNames(String yaml, Map<String, String> names) {
    ConfigMap configMap = SERIALIZATION.unmarshal(yaml, ConfigMap.class);
    if (!configMap.getData().keySet().equals(names.keySet())) {
      throw new AssertionError(
          NAMES_FILE
              + " in the README has the keys "
              + configMap.getData().keySet()
              + ", the component reads "
              + names.keySet());
    }
    if (!"true"
        .equals(
            configMap.getMetadata().getAnnotations().get("config.kubernetes.io/local-config"))) {
      throw new AssertionError(
          NAMES_FILE + " must be local-config: a source of names, never applied");
    }
    configMap.setData(new TreeMap<>(names));
    return SERIALIZATION.asYaml(configMap);
  }

  private static void write(Path root, String file, String text) throws IOException {
    Path path = root.resolve(file);
    Files.createDirectories(path.getParent());
    String checkout = path.getParent().relativize(Kustomize.deployDir()) + "/";
    Files.writeString(path, text.replace(CHECKOUT, checkout));
  }
}
