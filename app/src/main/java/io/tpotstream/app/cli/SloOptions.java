package io.tpotstream.app.cli;

import io.tpotstream.common.slo.SloSpec;
import picocli.CommandLine.Option;

/** {@code --slo} and {@code --goodput}, shared by produce, run, demo, aggregate and stats. */
final class SloOptions {
  @Option(
      names = "--slo",
      paramLabel = "OBJECTIVES",
      description =
          "Objectives, e.g. tpot_p99=50ms,ttft_p99=1s,error_rate=1%%,goodput=90%% (any of tpot_,"
              + " ttft_, request_tpot_, e2e_ with p50, p90, p99, p99.9, max or mean). A bounded run"
              + " that misses one exits with status 3. See docs/slo.md.")
  String slo;

  @Option(
      names = "--goodput",
      paramLabel = "LIMITS",
      description =
          "Per-request limits of a good request, e.g. ttft=1s,request_tpot=40ms (also e2e);"
              + " goodput is the share of finished requests that met them all.")
  String goodput;

  /** The spec; {@link SloSpec#NONE} when neither option is given. */
  SloSpec spec() {
    return SloSpec.parse(slo, goodput);
  }
}
