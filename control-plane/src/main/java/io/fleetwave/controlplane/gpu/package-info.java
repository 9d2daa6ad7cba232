/** Makes the GPU model catalogue available to the control plane's beans. */
package io.fleetwave.controlplane.gpu;
