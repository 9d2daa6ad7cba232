package io.fleetwave.events.fact;

import io.fleetwave.events.payload.FleetEvent;

/**
 * Everything on {@code fleet.control-facts}: a fact the control plane recorded, appended and
 * acknowledged before the request that made it succeeds. The envelope's subject is what the fact is
 * about (a node's name, or a constant for facts about no node) and also the record key; its epoch
 * and seq are 0: facts are ordered by the topic (one partition) and applied once each, by envelope
 * id.
 */
public sealed interface ControlFact extends FleetEvent
    permits NodeKeyEnrolled,
        NodeRevoked,
        NodeReadmitted,
        JoinTokenCreated,
        MigConfigsImported,
        AuditRecorded,
        DesiredSpecSet,
        CommandGenerationUsed,
        OperatorRequested,
        OperatorRequestHandled {}
