package io.fleetwave.controlplane.identity;

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
import java.util.regex.Pattern;

/**
 * SQL and format of one-time join tokens, {@code <id>.<secret>} as kubeadm's ({@code [a-z0-9]{6}}
 * and {@code [a-z0-9]{16}}): the id finds the row, only the SHA-256 of the secret is stored, and a
 * token is consumed in the transaction that stores the key it enrolls.
 */
final class JoinTokens {
  private static final Pattern FORMAT = Pattern.compile("([a-z0-9]{6})\\.([a-z0-9]{16})");
  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private JoinTokens() {}

  /** A token as handed to its creator once; only its id and the secret's hash are kept. */
  record Created(String token, String id, String node, Instant expiresAt) {}

  static Uni<Created> create(
      SqlClient sql, String node, Instant now, Instant expiresAt, String by) {
    String id = random(6);
    String secret = random(16);
    return sql.preparedQuery(
            "INSERT INTO join_tokens (id, secret_hash, node, created_by, created_at, expires_at)"
                + " VALUES ($1, $2, $3, $4, $5, $6)")
        .execute(
            Tuple.tuple()
                .addString(id)
                .addBuffer(io.vertx.mutiny.core.buffer.Buffer.buffer(sha256(secret)))
                .addString(node)
                .addString(by)
                .addOffsetDateTime(now.atOffset(ZoneOffset.UTC))
                .addOffsetDateTime(expiresAt.atOffset(ZoneOffset.UTC)))
        .map(rows -> new Created(id + "." + secret, id, node, expiresAt));
  }

  /**
   * Consumes the token for this node (row locked until the transaction ends).
   *
   * @return the credential as node_keys records it
   * @throws EnrolmentRefusedException naming why it cannot be used (never quoting the secret)
   */
  static Uni<String> consume(SqlClient tx, String token, String node, Instant now) {
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
              Row row = rows.size() == 0 ? null : rows.iterator().next();
              // One answer for an unknown id and a wrong secret: nothing to learn by guessing.
              if (row == null
                  || !MessageDigest.isEqual(row.getBuffer("secret_hash").getBytes(), hash)) {
                return refused("join token " + id + " is not valid");
              }
              if (row.getValue("used_at") != null) {
                return refused(
                    "join token "
                        + id
                        + " was already used (by node '"
                        + row.getString("used_by")
                        + "' at "
                        + row.getOffsetDateTime("used_at").toInstant()
                        + "); a join token enrolls one node once");
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
              return tx.preparedQuery(
                      "UPDATE join_tokens SET used_at = $2, used_by = $3 WHERE id = $1")
                  .execute(Tuple.of(id, now.atOffset(ZoneOffset.UTC), node))
                  .map(done -> "join token " + id);
            });
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
