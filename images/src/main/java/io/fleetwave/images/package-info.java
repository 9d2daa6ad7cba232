/**
 * The stand-in base image of the offline image check (docs/images.md "The offline check"); not
 * shipped.
 */
package io.fleetwave.images;
