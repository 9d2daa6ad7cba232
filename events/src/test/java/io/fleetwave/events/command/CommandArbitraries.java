package io.fleetwave.events.command;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.EventArbitraries;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random valid specs and commands (awkward profile and type names included). */
public final class CommandArbitraries {
  private CommandArbitraries() {}

  public static Arbitrary<CommandEnvelope> commands() {
    return Combinators.combine(
            names(),
            EventArbitraries.instants(),
            Arbitraries.integers().between(1, 3600),
            payloads())
        .as(
            (node, issued, ttl, kind) -> {
              Instant expires = issued.plusSeconds(ttl);
              NodeCommand command =
                  switch (kind) {
                    case SpecSeed s ->
                        new ApplyNodeSpec(
                            new NodeSpec(node, s.generation(), s.driver(), s.gpus(), s.gate()),
                            issued,
                            s.expiring() ? expires : null);
                    case ResetSeed r -> new ResetGpu(r.gpu(), r.generation(), issued, expires);
                    case ReprobeSeed p -> new Reprobe(p.generation(), issued, expires);
                  };
              return CommandEnvelope.of(
                  URI.create("fleetwave:control-plane"), node, issued, command);
            });
  }

  private sealed interface Seed {}

  private record SpecSeed(
      long generation,
      String driver,
      java.util.List<GpuSpec> gpus,
      GatePolicy gate,
      boolean expiring)
      implements Seed {}

  private record ResetSeed(int gpu, long generation) implements Seed {}

  private record ReprobeSeed(long generation) implements Seed {}

  private static Arbitrary<Seed> payloads() {
    Arbitrary<Long> generations = Arbitraries.longs().between(1, Long.MAX_VALUE);
    Arbitrary<Seed> specs =
        Combinators.combine(
                generations,
                Arbitraries.of("580.95.05", "570.172.08").injectNull(0.5),
                gpus().list().ofMaxSize(8).uniqueElements(GpuSpec::index),
                Arbitraries.of(GatePolicy.class),
                Arbitraries.of(true, false))
            .as(SpecSeed::new);
    Arbitrary<Seed> resets =
        Combinators.combine(Arbitraries.integers().between(0, 15), generations).as(ResetSeed::new);
    Arbitrary<Seed> reprobes = generations.map(ReprobeSeed::new);
    return Arbitraries.oneOf(specs, resets, reprobes);
  }

  static Arbitrary<GpuSpec> gpus() {
    Arbitrary<String> labels =
        Arbitraries.strings()
            .withCharRange('!', '~')
            .withCharRange('\u00a0', '\ud7ff') // no lone surrogates: not text, and not in the API
            .ofMinLength(1)
            .ofMaxLength(12)
            .filter(s -> !s.isBlank());
    return Combinators.combine(
            Arbitraries.integers().between(0, 15),
            Arbitraries.of(true, false),
            Arbitraries.maps(labels, Arbitraries.integers().between(1, 7)).ofMaxSize(4),
            Arbitraries.integers().between(0, 16),
            labels.list().ofMaxSize(16))
        .as(
            (index, mig, instances, vfs, types) -> {
              Map<Integer, String> byVf = new TreeMap<>();
              for (int vf = 0; vf < Math.min(vfs, types.size()); vf++) {
                byVf.put(vf, types.get(vf));
              }
              return new GpuSpec(index, mig, mig ? instances : Map.of(), vfs, byVf);
            });
  }

  private static Arbitrary<String> names() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .numeric()
        .withChars('-')
        .ofMinLength(1)
        .ofMaxLength(30);
  }
}
