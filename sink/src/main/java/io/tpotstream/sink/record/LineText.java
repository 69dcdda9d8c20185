package io.tpotstream.sink.record;

/**
 * Text as the sink's line files hold it: every control character (U+0000-U+001F, U+007F-U+009F) and
 * the line and paragraph separators (U+2028, U+2029) become a space, so that a value from any
 * client (a model name through the proxy) stays on its line. The CSV writes every cell through it
 * and {@link WindowKey} keys a row by it, so what is written is what is compared.
 */
public final class LineText {
  private LineText() {}

  /** {@code text} with each character that could break or hide a line as a space. */
  public static String of(String text) {
    if (text == null) {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      if (breaks(text.charAt(i))) {
        return replaced(text, i);
      }
    }
    return text; // the usual case: no copy
  }

  private static String replaced(String text, int first) {
    char[] chars = text.toCharArray();
    for (int i = first; i < chars.length; i++) {
      if (breaks(chars[i])) {
        chars[i] = ' ';
      }
    }
    return new String(chars);
  }

  private static boolean breaks(char c) {
    return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
  }
}
