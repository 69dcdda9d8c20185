package io.tpotstream.producer.engine;

import java.util.List;
import java.util.Map;

/**
 * What one scrape of a Prometheus endpoint held, as the {@link ExpositionParser} read it: the kept
 * samples by their name as written ({@code vllm:e2e_request_latency_seconds_bucket}), and counts of
 * what was not kept.
 *
 * @param samples the samples of the wanted families, by sample name, in the body's order
 * @param otherSamples sample lines of families nobody asked for (read no further than the name)
 * @param badLines lines that could not be read (skipped)
 * @param droppedSamples wanted samples past {@link ExpositionParser.Limits#maxSamples} (dropped)
 */
public record Exposition(
    Map<String, List<Sample>> samples, long otherSamples, long badLines, long droppedSamples) {

  /**
   * One sample line: {@code name{labels} value}.
   *
   * @param labels the labels as written (escapes undone)
   * @param value the value ({@code +Inf}, {@code -Inf} and {@code NaN} included)
   */
  public record Sample(String name, Map<String, String> labels, double value) {}

  /** The samples named {@code name} (none: empty). */
  public List<Sample> named(String name) {
    return samples.getOrDefault(name, List.of());
  }

  /** True when any sample of the family {@code family} was kept (any suffix). */
  public boolean hasFamily(String family) {
    for (String suffix : ExpositionParser.SUFFIXES) {
      if (samples.containsKey(family + suffix)) {
        return true;
      }
    }
    return false;
  }

  /** Every sample line that could be read, kept or not. */
  public long readableSamples() {
    long kept = 0;
    for (List<Sample> s : samples.values()) {
      kept += s.size();
    }
    return kept + otherSamples + droppedSamples;
  }
}
