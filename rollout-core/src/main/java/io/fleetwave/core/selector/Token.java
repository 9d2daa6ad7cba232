package io.fleetwave.core.selector;

/** A lexical token of a label selector, with its 0-based position for error messages. */
record Token(Kind kind, String text, int position) {
  enum Kind {
    WORD,
    EQ,
    DOUBLE_EQ,
    NOT_EQ,
    NOT,
    LPAREN,
    RPAREN,
    COMMA,
    END
  }
}
