package io.fleetwave.testsupport.services;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a field or parameter injected by {@link KafkaExtension} or {@link PostgresExtension}: the
 * service is started once per JVM (the test run of a module) and shared by every test class that
 * asks for the shared one, instead of once per class. Only for classes whose topics, consumer
 * groups, node names and tables are their own, and that never stop the service.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface Shared {}
