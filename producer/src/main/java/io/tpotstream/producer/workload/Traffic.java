package io.tpotstream.producer.workload;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.traffic.RateSchedule;
import io.tpotstream.producer.traffic.Sweep;
import io.tpotstream.producer.traffic.TraceSchedule;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * What a run sends and how its load is shaped, beyond the seed script's keys: the conversations
 * ({@code prompt}, {@code dataset}/{@code prompts_file}, or synthetic {@code input_len} with {@code
 * output_len}), a rate {@code schedule}, and a {@code sweep} of stages.
 *
 * @param conversations what every request sends
 * @param schedule the open-loop rate over time, or null (then {@code rate}, if any, is constant)
 * @param sweep stages run one after another, or null
 * @param trace a trace replayed with its timing instead ({@code trace}), or null
 */
public record Traffic(
    ConversationSource conversations, RateSchedule schedule, Sweep sweep, TraceSchedule trace) {

  /**
   * The traffic of the config's keys (each value as text, or null when the key is not set).
   * Relative files are under {@code baseDir}; {@code seed} seeds synthetic lengths; {@code prompt}
   * is the single prompt used when there is no other source; {@code rateGiven} says whether {@code
   * rate} is set too.
   *
   * @param datasetKey the key the dataset came from ({@code dataset} or {@code prompts_file})
   * @throws ConfigException naming the key that cannot be used
   */
  public static Traffic of(
      String datasetKey,
      String dataset,
      String inputLen,
      String outputLen,
      String schedule,
      String sweep,
      boolean rateGiven,
      Path baseDir,
      long seed,
      String prompt,
      Consumer<String> warnings) {
    LengthDistribution input = inputLen == null ? null : length("input_len", inputLen);
    LengthDistribution output = outputLen == null ? null : length("output_len", outputLen);
    ConversationSource conversations;
    if (dataset != null) {
      if (input != null) {
        throw new ConfigException(
            "config key 'input_len' makes synthetic prompts, which replace '"
                + datasetKey
                + "': keep one of them");
      }
      Path file = dataset.equals(Dataset.SAMPLE) ? Path.of(dataset) : baseDir.resolve(dataset);
      conversations = Dataset.read("config key '" + datasetKey + "'", file, warnings);
      if (output != null) {
        conversations = new OutputLengths(conversations, output, seed);
      }
    } else if (input != null) {
      conversations = new SyntheticPrompts(input, output, seed);
    } else {
      conversations = SinglePrompt.of(prompt);
      if (output != null) {
        conversations = new OutputLengths(conversations, output, seed);
      }
    }
    RateSchedule rates =
        schedule == null ? null : RateSchedule.parse("config key 'schedule'", schedule);
    if (rates != null && rateGiven) {
      throw new ConfigException(
          "config keys 'schedule' and 'rate' both set the open-loop rate: keep one");
    }
    Sweep stages = sweep == null ? null : Sweep.parse("config key 'sweep'", sweep);
    if (stages != null && stages.dimension().equals(Sweep.RATE) && rates != null) {
      throw new ConfigException(
          "config keys 'sweep' (rate) and 'schedule' both set the rate: keep one");
    }
    return new Traffic(conversations, rates, stages, null);
  }

  /** The same traffic with {@code trace} replayed instead. */
  public Traffic withTrace(TraceSchedule trace) {
    return new Traffic(conversations, schedule, sweep, trace);
  }

  /** True when the run is open-loop because of its schedule, a rate sweep or a trace. */
  public boolean openLoop() {
    return schedule != null
        || trace != null
        || (sweep != null && sweep.dimension().equals(Sweep.RATE));
  }

  private static LengthDistribution length(String key, String text) {
    try {
      return LengthDistribution.parse("config key '" + key + "'", text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }
}
