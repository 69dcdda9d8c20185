package io.tpotstream.bench.simulator;

import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The third-party client of the simulator benchmarks and tests: {@code aiohttp_client.py}, the seed
 * article's way of measuring TPOT in Python with aiohttp, run by a {@code python3} that can import
 * aiohttp (Debian's {@code python3-aiohttp}).
 */
public final class AiohttpClient {
  /** What to say when no such python3 is found. */
  public static final String MISSING =
      "no python3 that can import aiohttp (tried python3 on the PATH and /usr/bin/python3):"
          + " install Debian's python3-aiohttp (.ci/run does) to run the third-party client";

  private static final String SCRIPT = "aiohttp_client.py";

  /**
   * What the script printed.
   *
   * @param chunks content chunks received, per request that got a 200
   * @param gapP50Ms the client's own median gap (nearest rank), null without gaps
   */
  public record Result(
      int requests,
      int completed,
      int errors,
      List<Integer> chunks,
      Double gapP50Ms,
      Double gapP99Ms) {}

  private AiohttpClient() {}

  /** The first of {@code python3} (PATH) and {@code /usr/bin/python3} that imports aiohttp. */
  public static Optional<String> python() {
    for (String python : List.of("python3", "/usr/bin/python3")) {
      try {
        Process probe =
            new ProcessBuilder(python, "-c", "import aiohttp")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0) {
          return Optional.of(python);
        }
        probe.destroyForcibly();
      } catch (IOException e) {
        // not there: try the next one
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * Runs {@code requests} streamed requests of {@code model} ({@code maxTokens} each, {@code
   * concurrency} at a time) against the OpenAI base URL {@code baseUrl}; the script is copied into
   * {@code workDir} and its stderr goes to {@code workDir/aiohttp_client.log}.
   */
  public static Result run(
      String python,
      Path workDir,
      String baseUrl,
      String model,
      int requests,
      int concurrency,
      int maxTokens,
      Duration timeout) {
    try {
      Path script = workDir.resolve(SCRIPT);
      try (InputStream in = AiohttpClient.class.getResourceAsStream(SCRIPT)) {
        Files.write(script, in.readAllBytes());
      }
      Process process =
          new ProcessBuilder(
                  python,
                  script.toString(),
                  baseUrl,
                  model,
                  Integer.toString(requests),
                  Integer.toString(concurrency),
                  Integer.toString(maxTokens))
              .redirectError(workDir.resolve("aiohttp_client.log").toFile())
              .start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("the aiohttp client did not finish within " + timeout);
      }
      if (process.exitValue() != 0 || out.isBlank()) {
        throw new IllegalStateException(
            "the aiohttp client failed (exit "
                + process.exitValue()
                + "): see "
                + workDir.resolve("aiohttp_client.log"));
      }
      return Json.MAPPER.readValue(out.strip(), Result.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run the aiohttp client: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
