package io.fleetwave.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GateFileTest {
  @TempDir Path state;
  private final AtomicReference<String> bootId = new AtomicReference<>("boot-1");

  @Test
  void releasedOnlyWhileTheFileNamesTheCurrentBoot() throws Exception {
    GateFile gate = new GateFile(state, bootId::get);
    assertThat(gate.released()).isFalse();

    gate.release();
    assertThat(gate.released()).isTrue();
    assertThat(Files.readString(state.resolve(GateFile.NAME))).isEqualTo("boot-id=boot-1\n");

    bootId.set("boot-2"); // a reboot: the file left behind must not open the gate
    assertThat(gate.released()).isFalse();

    gate.release();
    gate.hold("applying");
    assertThat(gate.released()).isFalse();
    assertThat(state.resolve(GateFile.NAME)).doesNotExist();
  }

  @Test
  void aNewAgentRunStartsFromTheFileOrHeldWithoutOne() {
    GateFile file = new GateFile(state, bootId::get);
    file.release();

    assertThat(new AgentGate(List.of(new GateFile(state, bootId::get))).released()).isTrue();
    assertThat(new AgentGate(List.of()).released()).isFalse();

    AgentGate gate = new AgentGate(List.of(file));
    gate.hold("node booted");
    assertThat(file.released()).isFalse();
    gate.release();
    assertThat(file.released()).isTrue();
  }
}
