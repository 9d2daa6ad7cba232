package io.fleetwave.agent.nvml;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.ProcessCommandRunner;
import io.fleetwave.agent.reset.ResetPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds the stand-in libnvidia-ml.so.1 (src/test/c/nvml_stub.c) with gcc into a driver root, and
 * reaches its test controls through FFM. Skips, with the reason, where gcc is missing.
 */
public final class StubNvmlLibrary {
  private static final Path SOURCE = Path.of("src/test/c/nvml_stub.c");

  private final MethodHandle resetState;
  private final MethodHandle addProcess;
  private final MethodHandle commitReset;
  private final MethodHandle hangSetMigMode;
  private final MethodHandle releaseHang;
  private final MethodHandle hungCalls;

  @SuppressWarnings("restricted") // the stub's test controls are reached through FFM, as NVML is
  private StubNvmlLibrary(Path library) {
    SymbolLookup controls = SymbolLookup.libraryLookup(library, Arena.global());
    resetState = control(controls, "fleetwaveStubResetState", FunctionDescriptor.ofVoid());
    addProcess =
        control(
            controls,
            "fleetwaveStubAddProcess",
            FunctionDescriptor.ofVoid(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    commitReset =
        control(
            controls, "fleetwaveStubCommitReset", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
    hangSetMigMode = control(controls, "fleetwaveStubHangSetMigMode", FunctionDescriptor.ofVoid());
    releaseHang = control(controls, "fleetwaveStubReleaseHang", FunctionDescriptor.ofVoid());
    hungCalls =
        control(controls, "fleetwaveStubHungCalls", FunctionDescriptor.of(ValueLayout.JAVA_INT));
  }

  @SuppressWarnings("restricted") // see the constructor
  private static MethodHandle control(
      SymbolLookup controls, String name, FunctionDescriptor descriptor) {
    return Linker.nativeLinker().downcallHandle(controls.find(name).orElseThrow(), descriptor);
  }

  /** Compiles the stub into {@code libDir/libnvidia-ml.so.1} and opens its controls. */
  public static StubNvmlLibrary build(Path libDir) {
    return build(libDir, SOURCE);
  }

  /**
   * As {@link #build(Path)} from {@code source}: for tests of another module, whose working
   * directory is not this module's (e.g. {@code ../node-agent/src/test/c/nvml_stub.c}).
   */
  public static StubNvmlLibrary build(Path libDir, Path source) {
    Path gcc = findGcc();
    assumeTrue(
        gcc != null,
        "gcc not found on PATH: cannot build the stand-in libnvidia-ml.so.1 for the NVML FFM test");
    try {
      Files.createDirectories(libDir);
      Path library = libDir.resolve("libnvidia-ml.so.1");
      Process process =
          new ProcessBuilder(
                  gcc.toString(),
                  "-shared",
                  "-fPIC",
                  "-O1",
                  "-pthread",
                  "-o",
                  library.toString(),
                  source.toString())
              .redirectErrorStream(true)
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("gcc did not finish within 60 s");
      }
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException("gcc failed (" + process.exitValue() + "): " + output);
      }
      return new StubNvmlLibrary(library);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  void resetState() throws Throwable {
    resetState.invokeExact();
  }

  void addProcess(int gpu, int pid, long bytes) throws Throwable {
    addProcess.invokeExact(gpu, pid, bytes);
  }

  /** What the hardware does on a GPU reset: pending MIG mode becomes current, instances go. */
  void commitReset(int gpu) throws Throwable {
    commitReset.invokeExact(gpu);
  }

  /**
   * The real backend over the NVML found under {@code facts}' driver root (this stub, once built
   * there): host commands run for real, resets targeted only, and a reboot it asks for fails the
   * test.
   */
  public static NvmlGpuBackend backend(HostFacts facts) {
    return backend(facts, NvmlCalls.DEFAULT_BOUND);
  }

  /** As {@link #backend(HostFacts)}, each NVML call bounded by {@code nvmlCallBound}. */
  public static NvmlGpuBackend backend(HostFacts facts, Duration nvmlCallBound) {
    return NvmlGpuBackend.open(
        facts,
        new ProcessCommandRunner(),
        ResetPolicy.targetedOnly(),
        reason -> {
          throw new AssertionError("no reboot expected: " + reason);
        },
        nvmlCallBound);
  }

  /** From now on nvmlDeviceSetMigMode blocks in the library, as a wedged driver does. */
  public void hangSetMigMode() throws Throwable {
    hangSetMigMode.invokeExact();
  }

  /** Lets every blocked nvmlDeviceSetMigMode return. */
  public void releaseHang() throws Throwable {
    releaseHang.invokeExact();
  }

  /** How many calls entered nvmlDeviceSetMigMode while it hung. */
  public int hungCalls() throws Throwable {
    return (int) hungCalls.invokeExact();
  }

  private static Path findGcc() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":", -1)) {
      for (String name : List.of("gcc", "cc")) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }
}
