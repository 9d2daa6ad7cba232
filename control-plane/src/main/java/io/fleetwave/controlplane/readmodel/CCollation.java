package io.fleetwave.controlplane.readmodel;

import java.util.Comparator;

/**
 * Strings in the order of PostgreSQL's C collation (the database's ORDER BY and the sort of a
 * {@code string_agg(DISTINCT ...)} where {@link FleetTallyRows#sortsNamesAsJava} holds): by code
 * point, the order of their UTF-8 bytes. Java's {@link String#compareTo} orders by UTF-16 unit,
 * which differs only where a character past U+FFFF (a surrogate pair) meets one from U+E000 to
 * U+FFFF.
 */
final class CCollation {
  /** By code point. */
  static final Comparator<String> ORDER = CCollation::compare;

  private CCollation() {}

  private static int compare(String a, String b) {
    int common = Math.min(a.length(), b.length());
    for (int i = 0; i < common; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        // Surrogates (code points past U+FFFF) come after every unit outside them; among
        // themselves their order is the code points' (high surrogate first, then low).
        boolean xPair = Character.isSurrogate(x);
        if (xPair != Character.isSurrogate(y)) {
          return xPair ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }
}
