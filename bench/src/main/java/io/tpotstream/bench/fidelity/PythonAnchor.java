package io.tpotstream.bench.fidelity;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * B2's anchor: a plain Python aiohttp client ({@code aiohttp_client.py}, as the seed article's
 * script measures) streaming from the same simulator, so that the producer's fidelity and CPU per
 * token are compared with it in the same run. Needs Debian's {@code python3-aiohttp}.
 */
final class PythonAnchor {
  private static final List<String> PYTHONS = List.of("/usr/bin/python3", "python3");

  /**
   * What the Python client measured.
   *
   * @param arrivals per request id, the arrival of each content chunk (perf_counter_ns)
   * @param cpuNs the Python process's CPU time while streaming
   * @param chunks content chunks received
   * @param maxRssKb the Python process's maximum resident size (VmHWM), in KiB
   */
  record Result(
      Map<String, long[]> arrivals,
      long cpuNs,
      long wallNs,
      long chunks,
      int errors,
      long maxRssKb) {
    double cpuMicrosPerChunk() {
      return chunks == 0 ? 0 : cpuNs / 1000.0 / chunks;
    }
  }

  private PythonAnchor() {}

  /** A python3 that imports aiohttp, or empty (the anchor is then skipped, saying why). */
  static Optional<String> python() {
    for (String candidate : PYTHONS) {
      if (imports(candidate, "aiohttp")) {
        return Optional.of(candidate);
      }
      if (Thread.currentThread().isInterrupted()) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Whether {@code python} imports confluent_kafka (for the anchor that publishes). */
  static boolean canPublish(String python) {
    return imports(python, "confluent_kafka");
  }

  /** Whether {@code python} runs and imports {@code module}. */
  private static boolean imports(String python, String module) {
    try {
      Process p =
          new ProcessBuilder(python, "-c", "import " + module)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false; // not there
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs the client to the end: {@code requests} requests, {@code concurrency} at a time. */
  static Result run(
      String python,
      Path workDir,
      String chatCompletionsUrl,
      String model,
      int concurrency,
      int requests,
      int maxTokens,
      String idPrefix) {
    return run(
        python,
        workDir,
        chatCompletionsUrl,
        model,
        concurrency,
        requests,
        maxTokens,
        idPrefix,
        List.of());
  }

  /**
   * As {@link #run(String, Path, String, String, int, int, int, String)}, publishing every token
   * arrival to Kafka when {@code kafka} is {@code [bootstrap servers, topic]}.
   */
  static Result run(
      String python,
      Path workDir,
      String chatCompletionsUrl,
      String model,
      int concurrency,
      int requests,
      int maxTokens,
      String idPrefix,
      List<String> kafka) {
    try {
      // one copy per client: two may start at once (P1 runs one each way)
      Path script = workDir.resolve(idPrefix + "-aiohttp_client.py");
      try (InputStream in = PythonAnchor.class.getResourceAsStream("aiohttp_client.py")) {
        Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      }
      Path out = workDir.resolve(idPrefix + ".json");
      Path log = workDir.resolve(idPrefix + ".log");
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              python,
              script.toString(),
              chatCompletionsUrl,
              model,
              Integer.toString(concurrency),
              Integer.toString(requests),
              Integer.toString(maxTokens),
              idPrefix));
      command.addAll(kafka);
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(log.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(
            "the Python anchor failed (exit "
                + (p.isAlive() ? "none" : p.exitValue())
                + "): "
                + Files.readString(log));
      }
      JsonNode json = Json.MAPPER.readTree(out.toFile());
      Map<String, long[]> arrivals = new HashMap<>();
      for (JsonNode r : json.get("requests")) {
        JsonNode times = r.get("arrivals");
        long[] ns = new long[times.size()];
        for (int i = 0; i < ns.length; i++) {
          ns[i] = times.get(i).asLong();
        }
        arrivals.put(r.get("id").asText(), ns);
      }
      return new Result(
          arrivals,
          json.get("cpu_ns").asLong(),
          json.get("wall_ns").asLong(),
          json.get("chunks").asLong(),
          json.get("errors").asInt(),
          json.path("max_rss_kb").asLong());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run the Python anchor", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
