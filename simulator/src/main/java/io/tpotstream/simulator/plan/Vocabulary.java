package io.tpotstream.simulator.plan;

import java.util.List;

/**
 * The token texts the simulator streams: words with their leading space, plus a few that a JSON or
 * UTF-8 decoder must get right (a quote, a backslash, a newline, accented letters).
 */
final class Vocabulary {
  static final List<String> TOKENS =
      List.of(
          " the",
          " stream",
          " of",
          " tokens",
          " arrives",
          " at",
          " a",
          " steady",
          " pace",
          " and",
          " every",
          " gap",
          " between",
          " two",
          " chunks",
          " is",
          " measured",
          " in",
          " micro",
          "seconds",
          ",",
          ".",
          " model",
          " output",
          " latency",
          " tail",
          " median",
          " percentile",
          " window",
          " per",
          " request",
          " time",
          " first",
          " token",
          " then",
          " smooth",
          " jitter",
          " stall",
          " batch",
          " cache",
          " memory",
          " queue",
          " server",
          " client",
          " Kafka",
          " topic",
          " event",
          " record",
          " café",
          " naïve",
          " \"quoted\"",
          " back\\slash",
          "\n",
          "\n\n",
          " 42",
          " ms",
          " π",
          " →",
          " ok",
          " yes",
          " no",
          " more",
          " less",
          " fast");

  private Vocabulary() {}
}
