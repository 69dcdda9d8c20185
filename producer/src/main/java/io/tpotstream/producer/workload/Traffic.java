package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.traffic.RateSchedule;
import io.tpotstream.producer.traffic.Sweep;
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
 */
public record Traffic(ConversationSource conversations, RateSchedule schedule, Sweep sweep) {

  /** The config keys this reads. */
  public static final java.util.Set<String> KEYS =
      java.util.Set.of("dataset", "prompts_file", "input_len", "output_len", "schedule", "sweep");

  /**
   * Reads the keys from {@code root}; relative files are under {@code baseDir}; {@code seed} seeds
   * synthetic lengths; {@code prompt} is the single prompt used when there is no other source.
   *
   * @throws ConfigException naming the key that cannot be used
   */
  public static Traffic bind(
      ObjectNode root, Path baseDir, long seed, String prompt, Consumer<String> warnings) {
    String datasetKey = has(root, "dataset") ? "dataset" : "prompts_file";
    if (has(root, "dataset") && has(root, "prompts_file")) {
      throw new ConfigException(
          "config keys 'dataset' and 'prompts_file' are the same thing: keep one");
    }
    LengthDistribution input = has(root, "input_len") ? length(root, "input_len") : null;
    LengthDistribution output = has(root, "output_len") ? length(root, "output_len") : null;
    ConversationSource conversations;
    if (has(root, datasetKey)) {
      if (input != null) {
        throw new ConfigException(
            "config key 'input_len' makes synthetic prompts, which replace '"
                + datasetKey
                + "': keep one of them");
      }
      String name = text(root, datasetKey);
      Path file = name.equals(Dataset.SAMPLE) ? Path.of(name) : baseDir.resolve(name);
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
    RateSchedule schedule =
        has(root, "schedule")
            ? RateSchedule.parse("config key 'schedule'", text(root, "schedule"))
            : null;
    if (schedule != null && has(root, "rate")) {
      throw new ConfigException(
          "config keys 'schedule' and 'rate' both set the open-loop rate: keep one");
    }
    Sweep sweep =
        has(root, "sweep") ? Sweep.parse("config key 'sweep'", text(root, "sweep")) : null;
    if (sweep != null && sweep.dimension().equals(Sweep.RATE) && schedule != null) {
      throw new ConfigException(
          "config keys 'sweep' (rate) and 'schedule' both set the rate: keep one");
    }
    return new Traffic(conversations, schedule, sweep);
  }

  /** True when the run is open-loop because of its schedule or a rate sweep. */
  public boolean openLoop() {
    return schedule != null || (sweep != null && sweep.dimension().equals(Sweep.RATE));
  }

  private static LengthDistribution length(ObjectNode root, String key) {
    try {
      return LengthDistribution.parse("config key '" + key + "'", text(root, key));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static boolean has(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    return n != null && !n.isNull();
  }

  private static String text(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    if (!n.isValueNode()) {
      throw new ConfigException("config key '" + key + "': must be a string, got " + n);
    }
    return n.asText();
  }
}
