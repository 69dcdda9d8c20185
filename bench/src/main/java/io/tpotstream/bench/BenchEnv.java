package io.tpotstream.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * What every benchmark runs against.
 *
 * @param bootstrapServers the embedded broker
 * @param quick the short suite ({@code --quick})
 * @param workDir scratch files and the child JVMs' logs
 * @param childJvmOptions extra options for child JVMs (e.g. a JFR recording)
 */
public record BenchEnv(
    String bootstrapServers, boolean quick, Path workDir, List<String> childJvmOptions) {
  public BenchEnv {
    childJvmOptions = List.copyOf(childJvmOptions);
  }

  /**
   * Options of a JVM that runs the producer: the producer's own settings ({@code
   * jvm/produce.options}), or {@code -Dtpot.bench.producerJvm=a,b,c} to compare others; {@code ,}
   * alone: the JVM's defaults), then {@link #childJvmOptions()}.
   */
  public List<String> producerJvmOptions() {
    String other = System.getProperty("tpot.bench.producerJvm");
    List<String> options = new java.util.ArrayList<>();
    if (other == null) {
      options.addAll(io.tpotstream.common.jvm.JvmOptions.of("produce"));
    } else {
      for (String option : other.split("[,\\s]+")) {
        if (!option.isBlank()) {
          options.add(option);
        }
      }
    }
    options.addAll(childJvmOptions);
    return options;
  }

  /** {@code full} in the full suite, {@code quick} in the quick one. */
  public <T> T pick(T full, T quickValue) {
    return quick ? quickValue : full;
  }
}
