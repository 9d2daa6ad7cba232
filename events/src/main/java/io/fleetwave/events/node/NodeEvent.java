package io.fleetwave.events.node;

import io.fleetwave.events.payload.FleetEvent;

/** Everything an agent publishes on {@code fleet.node-events}. */
public sealed interface NodeEvent extends FleetEvent
    permits NodeRegistered,
        GpuInventoryReported,
        Heartbeat,
        AgentStopping,
        NodeBooted,
        SpecAccepted,
        SpecRejected,
        StepStarted,
        StepSucceeded,
        StepFailed,
        SpecApplied,
        GateHeld,
        GateReleased,
        EventsDropped {}
