package io.fleetwave.core.provenance;

import io.fleetwave.events.json.WireNamed;
import java.util.Comparator;

/**
 * One aspect of one GPU, or of the node (the driver: {@code gpu} null). Its text form ({@code
 * driver}, {@code 0/mig-mode}) is the key an {@link Observation} is stored under.
 */
public record AspectKey(Aspect aspect, Integer gpu) implements Comparable<AspectKey> {
  private static final Comparator<AspectKey> ORDER =
      Comparator.comparing(AspectKey::gpu, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(AspectKey::aspect);

  public static final AspectKey DRIVER = new AspectKey(Aspect.DRIVER, null);

  public AspectKey {
    if ((aspect == Aspect.DRIVER) != (gpu == null)) {
      throw new IllegalArgumentException("the driver is the node's, every other aspect a GPU's");
    }
  }

  public static AspectKey parse(String text) {
    int slash = text.indexOf('/');
    return slash < 0
        ? new AspectKey(WireNamed.parse(Aspect.class, text), null)
        : new AspectKey(
            WireNamed.parse(Aspect.class, text.substring(slash + 1)),
            Integer.valueOf(text.substring(0, slash)));
  }

  public String text() {
    return gpu == null ? aspect.wireName() : gpu + "/" + aspect.wireName();
  }

  @Override
  public int compareTo(AspectKey other) {
    return ORDER.compare(this, other);
  }
}
