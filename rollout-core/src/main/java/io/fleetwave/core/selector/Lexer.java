package io.fleetwave.core.selector;

import java.util.ArrayList;
import java.util.List;

/** Splits a label selector into tokens; whitespace separates and is otherwise ignored. */
final class Lexer {
  private Lexer() {}

  static List<Token> tokens(String text) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '=' || c == '!') {
        boolean doubled = i + 1 < text.length() && text.charAt(i + 1) == '=';
        Token.Kind kind =
            c == '='
                ? (doubled ? Token.Kind.DOUBLE_EQ : Token.Kind.EQ)
                : (doubled ? Token.Kind.NOT_EQ : Token.Kind.NOT);
        tokens.add(new Token(kind, doubled ? c + "=" : String.valueOf(c), i));
        i += doubled ? 2 : 1;
      } else if (c == '(' || c == ')' || c == ',') {
        Token.Kind kind =
            c == '(' ? Token.Kind.LPAREN : c == ')' ? Token.Kind.RPAREN : Token.Kind.COMMA;
        tokens.add(new Token(kind, String.valueOf(c), i));
        i++;
      } else if (isWordChar(c)) {
        int start = i;
        while (i < text.length() && isWordChar(text.charAt(i))) {
          i++;
        }
        tokens.add(new Token(Token.Kind.WORD, text.substring(start, i), start));
      } else {
        throw new LabelSelectorException(
            "invalid label selector '"
                + text
                + "': unexpected character '"
                + c
                + "' at position "
                + i);
      }
    }
    tokens.add(new Token(Token.Kind.END, "", text.length()));
    return tokens;
  }

  private static boolean isWordChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '/';
  }
}
