package io.tpotstream.common;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The known name nearest to a mistyped one, by edit distance (insertions, deletions, substitutions
 * and swaps of two neighbours, case ignored), as a command line suggests a flag: {@code concurency}
 * → {@code concurrency}, {@code timout} → {@code timeout}.
 */
public final class Nearest {
  private Nearest() {}

  /**
   * The name of {@code known} nearest to {@code word}, when it is near enough to be what was meant
   * (at most 2 edits, or a third of the word's length for a longer word); the first in iteration
   * order among equally near ones.
   */
  public static Optional<String> of(String word, Collection<String> known) {
    String w = word.toLowerCase(Locale.ROOT);
    int limit = Math.max(2, w.length() / 3);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String name : known) {
      int d = distance(w, name.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = name;
        bestDistance = d;
      }
    }
    return bestDistance <= limit && bestDistance < w.length()
        ? Optional.of(best)
        : Optional.empty();
  }

  /** Edits from {@code a} to {@code b} (optimal string alignment). */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
