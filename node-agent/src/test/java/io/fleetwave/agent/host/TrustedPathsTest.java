package io.fleetwave.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real files and directories under a temporary directory, checked as the root agent checks NVML and
 * host binaries. The trusted owners are root and the user running the test (as they are for an
 * agent), so the tests run as any user; the one that needs a file of a third user runs as root.
 */
class TrustedPathsTest {
  private static final TrustedPaths TRUST = TrustedPaths.rootOrSelf();

  @TempDir Path tmp;
  private Path driverRoot;
  private Path libDir;
  private Path library;

  @BeforeEach
  void aDriverRootOnlyItsOwnerCanWrite() throws Exception {
    driverRoot = Files.createDirectory(tmp.resolve("driver"));
    libDir = Files.createDirectories(driverRoot.resolve("usr/lib64"));
    library = Files.writeString(libDir.resolve("libnvidia-ml.so.580.95.05"), "ELF");
    for (Path dir : new Path[] {tmp, driverRoot, driverRoot.resolve("usr"), libDir}) {
      mode(dir, "rwxr-xr-x");
    }
    mode(library, "rw-r--r--");
  }

  @Test
  void aFileOfATrustedOwnerOnDirectoriesOnlyTheOwnerCanWriteIsAccepted() {
    assertThat(TRUST.check(library, "NVML library")).isEqualTo(library);
  }

  @Test
  void theLinkIsFollowedAndTheRealFileIsWhatIsReturned() throws Exception {
    Path link = libDir.resolve("libnvidia-ml.so.1");
    Files.createSymbolicLink(link, Path.of("libnvidia-ml.so.580.95.05"));

    assertThat(TRUST.check(link, "NVML library")).isEqualTo(library);
  }

  @Test
  void aFileOthersCanWriteIsRefusedNamingItsOwnerAndMode() throws Exception {
    mode(library, "rw-rw-rw-");

    assertThatThrownBy(() -> TRUST.check(library, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageStartingWith("NVML library " + library + " refused: ")
        .hasMessageContaining(library + " is writable by group and others (owner ")
        .hasMessageContaining("(uid " + ownerUid(library) + "), mode 0666)")
        .hasMessageEndingWith("on paths only their owner can write");
  }

  @Test
  void aParentDirectoryItsGroupCanWriteIsRefusedNamingThatDirectory() throws Exception {
    mode(driverRoot, "rwxrwxr-x");

    assertThatThrownBy(() -> TRUST.check(library, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining(driverRoot + " is writable by its group")
        .hasMessageContaining("mode 0775");
  }

  @Test
  void aLinkIntoADirectoryOthersCanWriteIsRefusedAtTheRealDirectory() throws Exception {
    Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
    Path planted = Files.writeString(elsewhere.resolve("libnvidia-ml.so.1"), "ELF");
    mode(planted, "rw-r--r--");
    mode(elsewhere, "rwxrwxrwx");
    Path link = libDir.resolve("libnvidia-ml.so.1");
    Files.createSymbolicLink(link, planted);

    assertThatThrownBy(() -> TRUST.check(link, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageStartingWith("NVML library " + link + " refused: ")
        .hasMessageContaining(elsewhere + " is writable by group and others")
        .hasMessageContaining("mode 0777");
  }

  @Test
  void aDirectoryOthersCanWriteIsAcceptedOnTheWayOnlyWithTheStickyBit() throws Exception {
    Path shared = Files.createDirectory(tmp.resolve("shared"));
    Path binary = Files.writeString(shared.resolve("nvidia-smi"), "#!/bin/sh\n");
    mode(binary, "rwxr-xr-x");
    Files.setAttribute(shared, "unix:mode", 01777);

    assertThat(TRUST.check(binary, "host binary")).isEqualTo(binary);

    Files.setAttribute(shared, "unix:mode", 0777);
    assertThatThrownBy(() -> TRUST.check(binary, "host binary"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining(shared + " is writable by group and others");
  }

  @Test
  void theTrustedOwnersAreAParameter() {
    int nobodyHere = 4_242;
    TrustedPaths onlyAStranger = TrustedPaths.ownedBy(Set.of(nobodyHere));

    assertThatThrownBy(() -> onlyAStranger.check(library, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining("refused: / is owned by someone else (owner root (uid 0), mode ")
        .hasMessageContaining("owned by uid 4242 (the agent's own)");
  }

  @Test
  void aFileOfAnotherUserIsRefusedNamingThatUser() throws Exception {
    assumeTrue(
        TrustedPaths.currentUid().orElse(-1) == 0, "giving a file to another user needs root");
    Files.setAttribute(library, "unix:uid", 65_534);

    assertThatThrownBy(() -> TRUST.check(library, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining(library + " is owned by someone else (owner ")
        .hasMessageContaining("(uid 65534), mode 0644)")
        .hasMessageContaining("only files owned by root on paths");
  }

  @Test
  void aMissingFileIsRefusedNamingIt() {
    Path missing = libDir.resolve("libnvidia-ml.so.1");

    assertThatThrownBy(() -> TRUST.check(missing, "NVML library"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining(missing + " does not exist");
  }

  @Test
  void aLoopOfLinksIsRefused() throws Exception {
    Path a = libDir.resolve("a");
    Path b = libDir.resolve("b");
    Files.createSymbolicLink(a, b);
    Files.createSymbolicLink(b, a);

    assertThatThrownBy(() -> TRUST.check(a, "host binary"))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageContaining("more than 40 symbolic links");
  }

  private static void mode(Path path, String permissions) throws Exception {
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
  }

  private static int ownerUid(Path path) throws Exception {
    return (Integer) Files.getAttribute(path, "unix:uid");
  }
}
