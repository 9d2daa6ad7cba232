/**
 * Working with PostgreSQL through the reactive client: what a failed call means for its caller
 * (data the server refused, which fails the same way when sent again, or work that did not run and
 * may succeed later), connections checked out with an exception handler (Connections, the only
 * checkout), transactions whose statements are pipelined, a batch's rows bound as the column arrays
 * of one statement, and reading a query's rows.
 */
package io.fleetwave.controlplane.database;
