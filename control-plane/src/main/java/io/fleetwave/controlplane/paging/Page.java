package io.fleetwave.controlplane.paging;

import java.util.List;

/** One page of a listing, with the total across all pages. */
public record Page<T>(List<T> items, int page, int size, long total) {}
