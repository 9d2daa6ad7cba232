package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.events.fact.JoinTokenCreated;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * SQL and format of one-time join tokens, {@code <id>.<secret>} as kubeadm's ({@code [a-z0-9]{6}}
 * and {@code [a-z0-9]{16}}): the id finds the row, only the SHA-256 of the secret is stored (in the
 * table and in its {@link JoinTokenCreated} fact), and a token is used up by the fact of the
 * enrolment it allowed, in the transaction that stores the key.
 */
final class JoinTokens {
  private static final Pattern FORMAT = Pattern.compile("([a-z0-9]{6})\\.([a-z0-9]{16})");
  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private JoinTokens() {}

  /** A token as handed to its creator once; only its id and the secret's hash are kept. */
  record Created(String token, String id, String node, Instant expiresAt) {}

  /** A new token: the secret for its creator, the fact (the secret's hash only) for the log. */
  record Minted(Created created, JoinTokenCreated fact) {}

  static Minted mint(String node, Instant now, Instant expiresAt, String by) {
    String id = random(6);
    String secret = random(16);
    return new Minted(
        new Created(id + "." + secret, id, node, expiresAt),
        new JoinTokenCreated(id, HexFormat.of().formatHex(sha256(secret)), by, now, expiresAt));
  }

  /** Stores a created token (its fact's), unless a token of that id is stored. */
  static Uni<Void> insert(SqlClient sql, String node, JoinTokenCreated token) {
    return sql.preparedQuery(
            "INSERT INTO join_tokens (id, secret_hash, node, created_by, created_at, expires_at)"
                + " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING")
        .execute(
            Tuple.tuple()
                .addString(token.id())
                .addBuffer(
                    io.vertx.mutiny.core.buffer.Buffer.buffer(
                        HexFormat.of().parseHex(token.secretSha256())))
                .addString(node)
                .addString(token.createdBy())
                .addOffsetDateTime(token.createdAt().atOffset(ZoneOffset.UTC))
                .addOffsetDateTime(token.expiresAt().atOffset(ZoneOffset.UTC)))
        .replaceWithVoid();
  }

  /** Marks the token used by the node's enrolment, unless it was marked before. */
  static Uni<Void> use(SqlClient sql, String id, String node, Instant at) {
    return sql.preparedQuery(
            "UPDATE join_tokens SET used_at = $2, used_by = $3 WHERE id = $1 AND used_at IS NULL")
        .execute(Tuple.of(id, at.atOffset(ZoneOffset.UTC), node))
        .replaceWithVoid();
  }

  /**
   * A token that may enroll the key.
   *
   * @param id the token's id
   * @param retry whether this token already enrolled this very key for this node: the agent's
   *     earlier attempt was stored but its answer never reached it (a timeout, a dropped
   *     connection), and it asks again with the same key
   */
  record Usable(String id, boolean retry) {}

  /**
   * Checks the token may enroll this key for this node, its row locked until the transaction ends;
   * the enrolment's fact uses it up ({@link #use}). A used token is refused, except to the key it
   * enrolled: answering that attempt again gives nobody anything (only the node holds the private
   * key), while refusing it would leave an agent whose answer was lost unable to ever enroll with
   * its token.
   *
   * @throws EnrolmentRefusedException naming why it cannot be used (never quoting the secret)
   */
  static Uni<Usable> check(SqlClient tx, String token, String node, String keyId, Instant now) {
    var parts = FORMAT.matcher(token);
    if (!parts.matches()) {
      return refused("the join token is not of the form <6 characters>.<16 characters> (a-z, 0-9)");
    }
    String id = parts.group(1);
    byte[] hash = sha256(parts.group(2));
    return tx.preparedQuery(
            "SELECT secret_hash, node, expires_at, used_at, used_by FROM join_tokens"
                + " WHERE id = $1 FOR UPDATE")
        .execute(Tuple.of(id))
        .chain(
            rows -> {
              Row row = Rows.first(rows).orElse(null);
              // One answer for an unknown id and a wrong secret: nothing to learn by guessing.
              if (row == null
                  || !MessageDigest.isEqual(row.getBuffer("secret_hash").getBytes(), hash)) {
                return refused("join token " + id + " is not valid");
              }
              if (row.getValue("used_at") != null) {
                if (node.equals(row.getString("used_by"))) {
                  return enrolledBy(tx, id, node, keyId)
                      .chain(
                          same ->
                              same ? Uni.createFrom().item(new Usable(id, true)) : usedUp(id, row));
                }
                return usedUp(id, row);
              }
              OffsetDateTime expires = row.getOffsetDateTime("expires_at");
              if (!now.isBefore(expires.toInstant())) {
                return refused("join token " + id + " expired at " + expires.toInstant());
              }
              String boundTo = row.getString("node");
              if (boundTo == null) {
                // Made before tokens had to name their node: it would enroll any name.
                return refused(
                    "join token "
                        + id
                        + " names no node, so it could enroll a key for any node, one already"
                        + " enrolled included; create a join token for node '"
                        + node
                        + "' instead");
              }
              if (!boundTo.equals(node)) {
                return refused("join token " + id + " is for node '" + boundTo + "'");
              }
              return Uni.createFrom().item(new Usable(id, false));
            });
  }

  private static <T> Uni<T> usedUp(String id, Row row) {
    return refused(
        "join token "
            + id
            + " was already used (by node '"
            + row.getString("used_by")
            + "' at "
            + row.getOffsetDateTime("used_at").toInstant()
            + "); a join token enrolls one node once");
  }

  /** Whether the token enrolled this key for this node, and the key still counts. */
  private static Uni<Boolean> enrolledBy(SqlClient tx, String id, String node, String keyId) {
    return tx.preparedQuery(
            "SELECT 1 FROM node_keys WHERE key_id = $1 AND node = $2 AND credential = $3"
                + " AND revoked_at IS NULL")
        .execute(Tuple.of(keyId, node, credential(id)))
        .map(rows -> rows.size() > 0);
  }

  /** How an enrolment by the token is named in node_keys and the audit log. */
  static String credential(String id) {
    return "join token " + id;
  }

  private static <T> Uni<T> refused(String reason) {
    return Uni.createFrom().failure(new EnrolmentRefusedException(reason));
  }

  private static String random(int length) {
    char[] out = new char[length];
    for (int i = 0; i < length; i++) {
      out[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
    }
    return new String(out);
  }

  private static byte[] sha256(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK offers no SHA-256", e);
    }
  }
}
