package io.fleetwave.testsupport.services;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * Starts one service per test class (or, for {@link Shared}, one per JVM) and injects it into
 * static and instance fields of its type and into parameters of constructors, lifecycle methods and
 * test methods. The service is kept in JUnit's store of the class (of the run, when shared), which
 * closes it when the class (the run) ends.
 *
 * <p>Where the service cannot start here ({@code unavailable} names why), what needs it is disabled
 * with that reason, before anything runs: the whole class when a field, constructor or lifecycle
 * method takes it, else each test that takes it. Reported as skipped, never as failed (an exception
 * from parameter resolution would be a failure).
 */
abstract class ServiceExtension<S extends AutoCloseable>
    implements ExecutionCondition, BeforeAllCallback, TestInstancePostProcessor, ParameterResolver {
  private final Class<S> type;
  private final Supplier<? extends S> starter;
  private final Supplier<Optional<String>> unavailable;
  private final ExtensionContext.Namespace namespace;

  ServiceExtension(
      Class<S> type, Supplier<? extends S> starter, Supplier<Optional<String>> unavailable) {
    this.type = type;
    this.starter = starter;
    this.unavailable = unavailable;
    this.namespace = ExtensionContext.Namespace.create(ServiceExtension.class, type);
  }

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    boolean needed =
        context
            .getTestMethod()
            .map(this::takesService)
            .orElseGet(() -> context.getTestClass().map(this::classWideUse).orElse(false));
    if (!needed) {
      return ConditionEvaluationResult.enabled(type.getSimpleName() + " not needed here");
    }
    return unavailable
        .get()
        .map(ConditionEvaluationResult::disabled)
        .orElseGet(() -> ConditionEvaluationResult.enabled(type.getSimpleName() + " can start"));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IllegalAccessException {
    injectFields(context, null, true);
  }

  /** A field, constructor or lifecycle method of the class (not only a test) needs the service. */
  private boolean classWideUse(Class<?> testClass) {
    for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
      if (Arrays.stream(c.getDeclaredFields()).anyMatch(f -> f.getType() == type)
          || Arrays.stream(c.getDeclaredConstructors()).anyMatch(this::takesService)
          || Arrays.stream(c.getDeclaredMethods())
              .filter(ServiceExtension::isLifecycleMethod)
              .anyMatch(this::takesService)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isLifecycleMethod(Method method) {
    return method.isAnnotationPresent(BeforeAll.class)
        || method.isAnnotationPresent(BeforeEach.class)
        || method.isAnnotationPresent(AfterEach.class)
        || method.isAnnotationPresent(AfterAll.class);
  }

  private boolean takesService(Executable executable) {
    return Arrays.stream(executable.getParameterTypes()).anyMatch(t -> t == type);
  }

  @Override
  public void postProcessTestInstance(Object testInstance, ExtensionContext context)
      throws IllegalAccessException {
    injectFields(context, testInstance, false);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == type;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return service(context, parameter.isAnnotated(Shared.class));
  }

  private void injectFields(ExtensionContext context, Object instance, boolean statics)
      throws IllegalAccessException {
    Class<?> testClass = context.getRequiredTestClass();
    for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (field.getType() != type || Modifier.isStatic(field.getModifiers()) != statics) {
          continue;
        }
        if (Modifier.isFinal(field.getModifiers())) {
          throw new ExtensionConfigurationException(
              testClass.getName() + "." + field.getName() + " is final: the extension sets it");
        }
        field.setAccessible(true);
        field.set(instance, service(context, isShared(field)));
      }
    }
  }

  private static boolean isShared(AnnotatedElement element) {
    return element.isAnnotationPresent(Shared.class);
  }

  private S service(ExtensionContext context, boolean shared) {
    // Distinct keys: a store lookup falls back to the enclosing contexts' stores, and a class that
    // asks for its own service must not be handed the run's shared one (a @Nested class, though,
    // does get its outer class's).
    ExtensionContext owner = shared ? context.getRoot() : classContext(context);
    String key = shared ? "shared" : "per-class";
    return owner.getStore(namespace).computeIfAbsent(key, k -> starter.get(), type);
  }

  /** The nearest enclosing class's context: the service lives as long as the class's tests. */
  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (!(c.getElement().orElse(null) instanceof Class<?>)) {
      c =
          c.getParent()
              .orElseThrow(
                  () ->
                      new ExtensionConfigurationException(
                          "no test class around " + context.getDisplayName()));
    }
    return c;
  }
}
