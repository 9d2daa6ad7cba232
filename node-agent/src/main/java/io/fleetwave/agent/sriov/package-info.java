/** SR-IOV virtual functions and vGPU types through sysfs. */
package io.fleetwave.agent.sriov;
