/** The GPU backend on a real node: NVML called through java.lang.foreign. */
package io.fleetwave.agent.nvml;
