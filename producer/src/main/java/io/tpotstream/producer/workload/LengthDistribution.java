package io.tpotstream.producer.workload;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A distribution of token counts for synthetic prompts and outputs: {@code 256} (fixed), {@code
 * 128-1024} (uniform, both ends included) or {@code lognormal:512,0.6} (log-normal with median 512
 * and σ 0.6 of the underlying normal, the long-tailed shape of real prompt lengths). Draws are
 * rounded and kept within 1 and {@link #MAX_TOKENS}.
 */
public sealed interface LengthDistribution {
  int MAX_TOKENS = 1_000_000;

  /** One draw. */
  int sample(SplittableRandom random);

  /** The text {@link #parse} reads back. */
  String text();

  record Fixed(int tokens) implements LengthDistribution {
    @Override
    public int sample(SplittableRandom random) {
      return tokens;
    }

    @Override
    public String text() {
      return Integer.toString(tokens);
    }
  }

  record Uniform(int low, int high) implements LengthDistribution {
    @Override
    public int sample(SplittableRandom random) {
      return random.nextInt(low, high + 1);
    }

    @Override
    public String text() {
      return low + "-" + high;
    }
  }

  record LogNormal(double median, double sigma) implements LengthDistribution {
    @Override
    public int sample(SplittableRandom random) {
      double z = gaussian(random);
      long value = Math.round(median * Math.exp(sigma * z));
      return (int) Math.max(1, Math.min(MAX_TOKENS, value));
    }

    @Override
    public String text() {
      return "lognormal:" + strip(median) + "," + strip(sigma);
    }

    /** Box–Muller from two uniform draws: the same stream of numbers for the same seed. */
    private static double gaussian(SplittableRandom random) {
      double u1 = 1.0 - random.nextDouble();
      double u2 = random.nextDouble();
      return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    private static String strip(double v) {
      return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
  }

  /**
   * Reads a distribution; {@code key} names the option in the message of the {@link
   * IllegalArgumentException} thrown for text it cannot read.
   */
  static LengthDistribution parse(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("lognormal:")) {
        String[] parts = t.substring("lognormal:".length()).split(",");
        if (parts.length != 2) {
          throw new IllegalArgumentException("two numbers");
        }
        double median = Double.parseDouble(parts[0].trim());
        double sigma = Double.parseDouble(parts[1].trim());
        if (!(median >= 1) || !(sigma >= 0) || median > MAX_TOKENS || sigma > 5) {
          throw new IllegalArgumentException("range");
        }
        return new LogNormal(median, sigma);
      }
      String range = t.startsWith("uniform:") ? t.substring("uniform:".length()) : t;
      int dash = range.indexOf('-');
      if (dash > 0) {
        int low = tokens(range.substring(0, dash));
        int high = tokens(range.substring(dash + 1));
        if (low > high) {
          throw new IllegalArgumentException("range");
        }
        return low == high ? new Fixed(low) : new Uniform(low, high);
      }
      return new Fixed(tokens(range));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key
              + ": cannot read '"
              + text
              + "' as a length: write 256 (fixed), 128-1024 (uniform) or lognormal:512,0.6"
              + " (median, sigma), in tokens from 1 to "
              + MAX_TOKENS);
    }
  }

  private static int tokens(String text) {
    int v = Integer.parseInt(text.trim());
    if (v < 1 || v > MAX_TOKENS) {
      throw new IllegalArgumentException("range");
    }
    return v;
  }
}
