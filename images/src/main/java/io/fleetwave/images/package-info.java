/** The stand-in base image of the offline image check (README "Images"); not shipped. */
package io.fleetwave.images;
