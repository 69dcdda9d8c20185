package io.tpotstream.app.run;

import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code tpot run} against the simulator on the embedded broker, as the run tests need it: 2 s
 * windows, no /metrics, a minute to drain. {@code printed} is stdout, {@code shown} stderr (the
 * live view and what the run waits for).
 */
record SimulatedRun(Pipeline.Outcome outcome, String printed, String shown) {
  /** Runs the pipeline with the live view in plain lines. */
  static SimulatedRun of(
      Path out,
      Function<String, Map<String, String>> config,
      List<String> groupBy,
      SloSpec slo,
      Path requestsOut)
      throws Exception {
    return of(Progress.Mode.PLAIN, out, config, groupBy, slo, requestsOut);
  }

  /** Runs the pipeline on the config keys {@code config} gives for the simulator's base URL. */
  static SimulatedRun of(
      Progress.Mode view,
      Path out,
      Function<String, Map<String, String>> config,
      List<String> groupBy,
      SloSpec slo,
      Path requestsOut)
      throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ByteArrayOutputStream shown = new ByteArrayOutputStream();
    Pipeline.Settings settings =
        new Pipeline.Settings(
            simulatorUrl -> ConfigLoader.load(null, config.apply(simulatorUrl), Map.of(), w -> {}),
            null,
            out,
            Duration.ofSeconds(2),
            groupBy,
            true,
            -1,
            view,
            Duration.ofMinutes(1),
            slo,
            requestsOut);
    Pipeline.Outcome outcome =
        new Pipeline(
                settings,
                new PrintStream(printed, true, StandardCharsets.UTF_8),
                new PrintStream(shown, true, StandardCharsets.UTF_8))
            .run();
    return new SimulatedRun(
        outcome, printed.toString(StandardCharsets.UTF_8), shown.toString(StandardCharsets.UTF_8));
  }
}
