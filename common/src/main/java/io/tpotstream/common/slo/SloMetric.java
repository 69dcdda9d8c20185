package io.tpotstream.common.slo;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;
import java.util.Locale;

/** What an SLO objective limits: a latency distribution, the error rate, or the goodput. */
public enum SloMetric {
  TPOT("tpot"),
  TTFT("ttft"),
  REQUEST_TPOT("request_tpot"),
  E2E("e2e"),
  ERROR_RATE("error_rate"),
  GOODPUT("goodput");

  private final String prefix;

  SloMetric(String prefix) {
    this.prefix = prefix;
  }

  /** The name as objectives spell it ({@code tpot}, {@code request_tpot}, ...). */
  public String prefix() {
    return prefix;
  }

  /** True for the four latency distributions (limits in ms). */
  public boolean latency() {
    return this != ERROR_RATE && this != GOODPUT;
  }

  /** The histogram of {@code stats} this latency metric reads. */
  LatencyHistogram histogram(WindowStats stats) {
    return switch (this) {
      case TPOT -> stats.tpot;
      case TTFT -> stats.ttft;
      case REQUEST_TPOT -> stats.requestTpot;
      case E2E -> stats.e2e;
      default -> throw new IllegalStateException(this + " is not a latency");
    };
  }

  /** The latency metric whose name starts {@code name} followed by {@code _}, or null. */
  static SloMetric latencyPrefixOf(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    // longest prefix first: request_tpot before tpot
    for (SloMetric m : new SloMetric[] {REQUEST_TPOT, TPOT, TTFT, E2E}) {
      if (n.startsWith(m.prefix + "_")) {
        return m;
      }
    }
    return null;
  }
}
