package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.events.security.EnrolledKey;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** SQL of the node_keys table: enrolled keys, looked up by id, and their revocation. */
public final class NodeKeyStore {
  private NodeKeyStore() {}

  /** How a reader of keys makes an enrolled key of a row (it may keep what it derived of a key). */
  @FunctionalInterface
  public interface KeyReader {
    EnrolledKey read(String keyId, String node, String publicKeyPem, boolean revoked);
  }

  /**
   * The enrolled keys among these ids (revoked ones included, marked so), each read by {@code
   * read}.
   */
  public static Uni<Map<String, EnrolledKey>> byId(
      SqlClient sql, Collection<String> keyIds, KeyReader read) {
    return sql.preparedQuery(
            "SELECT key_id, node, public_key, revoked_at IS NOT NULL AS revoked FROM node_keys"
                + " WHERE key_id = ANY($1)")
        .execute(Tuple.tuple().addArrayOfString(keyIds.toArray(String[]::new)))
        .map(
            rows ->
                Rows.byKey(
                    rows,
                    row -> row.getString("key_id"),
                    row ->
                        read.read(
                            row.getString("key_id"),
                            row.getString("node"),
                            row.getString("public_key"),
                            row.getBoolean("revoked"))));
  }

  /** Who holds a key: its node, and whether it was revoked. */
  record Holder(String node, boolean revoked) {}

  /** The key's holder, or null when no node enrolled it. */
  static Uni<Holder> holder(SqlClient sql, String keyId) {
    return sql.preparedQuery(
            "SELECT node, revoked_at IS NOT NULL AS revoked FROM node_keys WHERE key_id = $1")
        .execute(Tuple.of(keyId))
        .map(
            rows ->
                Rows.first(rows)
                    .map(row -> new Holder(row.getString("node"), row.getBoolean("revoked")))
                    .orElse(null));
  }

  /**
   * Why {@code node} may not enroll a key that {@code holder} holds, or null when it may: a key
   * already enrolled for the same node is left as it is (an agent that enrolls again after a lost
   * answer); one of another node, or revoked, is refused.
   */
  static String conflict(Holder holder, String keyId, String node) {
    if (!holder.node().equals(node)) {
      return "key " + keyId + " is enrolled by another node";
    }
    if (holder.revoked()) {
      return "key " + keyId + " of node '" + node + "' was revoked; enroll a new key";
    }
    return null;
  }

  /** Stores a node's key unless a key of that id is stored (the fact applied before). */
  static Uni<Void> insert(
      SqlClient sql,
      String keyId,
      String node,
      String publicKeyPem,
      String credential,
      Instant at) {
    return sql.preparedQuery(
            "INSERT INTO node_keys (key_id, node, public_key, credential, enrolled_at)"
                + " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key_id) DO NOTHING")
        .execute(Tuple.of(keyId, node, publicKeyPem, credential, at.atOffset(ZoneOffset.UTC)))
        .replaceWithVoid();
  }

  /** The node's keys that are not revoked, oldest first. */
  static Uni<List<Enrolled.NodeKey>> validKeys(SqlClient sql, String node) {
    return sql.preparedQuery(
            "SELECT key_id, public_key FROM node_keys WHERE node = $1 AND revoked_at IS NULL"
                + " ORDER BY enrolled_at, key_id")
        .execute(Tuple.of(node))
        .map(
            rows ->
                Rows.each(
                    rows,
                    row ->
                        new Enrolled.NodeKey(
                            row.getString("key_id"), row.getString("public_key"))));
  }

  /**
   * Serializes enrolment, revocation and re-admission of one node: each runs in a transaction that
   * first takes this lock, so a key cannot slip in between a revocation's marking of the node and
   * of its keys.
   */
  static Uni<Void> lockNode(SqlClient tx, String node) {
    return lock(tx, "node-identity:" + node);
  }

  /**
   * Serializes the enrolments of one key: two nodes enrolling the same key at once would otherwise
   * both find it new and both append their fact, and the log's order could differ from the table's.
   */
  static Uni<Void> lockKey(SqlClient tx, String keyId) {
    return lock(tx, "node-key:" + keyId);
  }

  private static Uni<Void> lock(SqlClient tx, String name) {
    return tx.preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .execute(Tuple.of(name))
        .replaceWithVoid();
  }

  /** The node's revocation, or null when it is admitted. */
  static Uni<NodeRevocation> revocation(SqlClient sql, String node) {
    return sql.preparedQuery("SELECT revoked_at, revoked_by FROM revoked_nodes WHERE node = $1")
        .execute(Tuple.of(node))
        .map(rows -> revocationIn(rows, node));
  }

  /**
   * Revokes the node (kept from the first revocation on until it is re-admitted) and every key it
   * enrolled; the number of keys it revoked.
   */
  static Uni<Integer> revoke(SqlClient tx, String node, String actor, Instant at) {
    return tx.preparedQuery(
            "INSERT INTO revoked_nodes (node, revoked_at, revoked_by) VALUES ($1, $2, $3)"
                + " ON CONFLICT (node) DO NOTHING")
        .execute(Tuple.of(node, at.atOffset(ZoneOffset.UTC), actor))
        .chain(
            marked ->
                tx.preparedQuery(
                        "UPDATE node_keys SET revoked_at = $2, revoked_by = $3"
                            + " WHERE node = $1 AND revoked_at IS NULL")
                    .execute(Tuple.of(node, at.atOffset(ZoneOffset.UTC), actor)))
        .map(rows -> rows.rowCount());
  }

  /** Admits a revoked node again: the revocation it ends, or null when it was not revoked. */
  static Uni<NodeRevocation> readmit(SqlClient tx, String node) {
    return tx.preparedQuery(
            "DELETE FROM revoked_nodes WHERE node = $1 RETURNING revoked_at, revoked_by")
        .execute(Tuple.of(node))
        .map(rows -> revocationIn(rows, node));
  }

  /** The revocation a query's one row describes, or null when it found none. */
  private static NodeRevocation revocationIn(RowSet<Row> rows, String node) {
    return Rows.first(rows)
        .map(
            row ->
                new NodeRevocation(
                    node,
                    row.getOffsetDateTime("revoked_at").toInstant(),
                    row.getString("revoked_by")))
        .orElse(null);
  }
}
