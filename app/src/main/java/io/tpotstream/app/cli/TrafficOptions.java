package io.tpotstream.app.cli;

import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What to send and how to shape the load: flags for the config's traffic keys, each the key its
 * name spells ({@link ProducerConfigOptions#putConfigKeys}), and where the request records go.
 */
final class TrafficOptions {
  @Option(
      names = "--dataset",
      paramLabel = "FILE",
      description =
          "Config key dataset: JSONL of {\"prompt\", \"max_tokens\"}, {\"messages\": [...]} or"
              + " ShareGPT {\"conversations\": [...]} (multi-turn, in order); 'sample' for the"
              + " bundled sample.")
  String dataset;

  @Option(
      names = "--input-len",
      paramLabel = "DIST",
      description =
          "Config key input_len: synthetic prompts of 256, 128-1024 (uniform) or"
              + " lognormal:512,0.6 tokens.")
  String inputLen;

  @Option(
      names = "--output-len",
      paramLabel = "DIST",
      description = "Config key output_len: max_tokens per request, drawn the same way.")
  String outputLen;

  @Option(
      names = "--schedule",
      paramLabel = "SPEC",
      description =
          "Config key schedule: open-loop rate steps, e.g. 0s:2/s,60s:5/s,120s:10/s,180s:end;"
              + " ramp:... for straight lines; @FILE reads them from a file.")
  String schedule;

  @Option(
      names = "--sweep",
      paramLabel = "DIM=V,V",
      description =
          "Config key sweep: stages one after another, e.g. concurrency=1,4,16 or rate=1,2,4;"
              + " each request is labelled stage=concurrency-4 (group by it with --group-by"
              + " stage).")
  String sweep;

  @Option(
      names = "--trace",
      paramLabel = "FILE",
      description =
          "Config key trace: replay a trace with its timing (Mooncake or tpot JSON lines, or the"
              + " Azure trace CSV): each request at its offset, a prompt of its input length"
              + " sharing the blocks its hash_ids share, its output length as max_tokens. From"
              + " the working directory.")
  Path trace;

  @Option(
      names = "--trace-format",
      paramLabel = "FORMAT",
      description =
          "Config key trace_format: mooncake, tpot or azure (default: told from the file).")
  String traceFormat;

  @Option(
      names = "--trace-speed",
      paramLabel = "X",
      description = "Config key trace_speed: replay this much faster (2: offsets halved).")
  Double traceSpeed;

  @Option(
      names = "--trace-window",
      paramLabel = "FROM-TO",
      description =
          "Config key trace_window: replay only the requests from FROM to TO into the trace"
              + " (e.g. 10m-20m), starting at 0.")
  String traceWindow;

  @Mixin RequestsOutOptions requestsOut;

  @Spec CommandSpec spec;

  /** Puts the given flags as config keys; the trace's path from the working directory. */
  void putInto(Map<String, String> flags) {
    ProducerConfigOptions.putConfigKeys(spec, flags);
    if (trace != null) {
      flags.put("trace", trace.toAbsolutePath().toString());
    }
  }
}
