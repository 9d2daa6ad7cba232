package io.fleetwave.testfixtures.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;

/**
 * The import rule of a pure core (rollout-core, the agent's reconciler): what its classes may
 * depend on, written once for the modules that have one.
 */
public final class PureImports {
  private PureImports() {}

  /**
   * {@code allowed}, for a class and for an array of such classes, and primitives: ArchUnit sees
   * {@code int} and {@code Foo[]} as classes of their own, in no package.
   */
  public static DescribedPredicate<JavaClass> elementsOf(DescribedPredicate<JavaClass> allowed) {
    return DescribedPredicate.describe(
        allowed.getDescription(),
        c -> {
          JavaClass element = c.isArray() ? c.getBaseComponentType() : c;
          return element.isPrimitive() || allowed.test(element);
        });
  }
}
