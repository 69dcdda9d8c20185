package io.tpotstream.producer.config;

import java.time.Duration;

/**
 * The most a local warm-up may spend: {@value #DEFAULT_SECONDS} s and {@value #DEFAULT_CHUNKS}
 * token chunks, and never more than a tenth of a bounded run's own work (a tenth of its planned
 * requests × {@code max_tokens} in chunks, or of a trace's output lengths, a tenth of its {@code
 * duration} in time). The warm-up ends at the first of its budget's two limits, or sooner once the
 * JIT has settled.
 *
 * @param time the longest it lasts
 * @param chunks the most token chunks it streams (counted as the publisher reads them)
 */
public record WarmupBudget(Duration time, long chunks) {
  static final int DEFAULT_SECONDS = 10;
  static final long DEFAULT_CHUNKS = 100_000;

  /** A warm-up's share of the run it protects, at most: one tenth. */
  static final int SHARE = 10;

  /** The budget of {@code config}'s local warm-up. */
  public static WarmupBudget of(ProducerConfig config) {
    Duration time = Duration.ofSeconds(DEFAULT_SECONDS);
    long chunks = DEFAULT_CHUNKS;
    Duration runFor = config.duration();
    if (runFor != null && !runFor.equals(ConfigDurations.FOREVER)) {
      Duration share = runFor.dividedBy(SHARE);
      time = share.compareTo(time) < 0 ? share : time;
    }
    long planned = config.plannedRequests();
    if (planned >= 0 && config.trace() != null) {
      chunks = Math.min(chunks, config.trace().file().window().outputTokens() / SHARE);
    } else if (planned >= 0 && config.maxTokens() != null) {
      chunks = Math.min(chunks, planned * config.maxTokens() / SHARE);
    }
    return new WarmupBudget(time, chunks);
  }

  /** {@code 10 s or 40000 chunks}. */
  public String describe() {
    return ConfigDurations.format(time) + " or " + chunks + " chunks";
  }
}
