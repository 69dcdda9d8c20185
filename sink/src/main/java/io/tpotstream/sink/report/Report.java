package io.tpotstream.sink.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the report into a directory: {@value #TPOT_PNG}, {@value #TTFT_PNG}, {@value
 * #ERROR_RATE_PNG}, {@value #TOKENS_PNG} ({@link #WIDTH_PX}×{@link #HEIGHT_PX} px; {@value
 * #ENGINE_PNG} and {@value #KNEE_PNG} when they apply) and {@value #HTML}. Each file is replaced
 * atomically, so a reader never sees half a file.
 */
public final class Report {
  public static final String TPOT_PNG = "tpot.png";
  public static final String TTFT_PNG = "ttft.png";
  public static final String ERROR_RATE_PNG = "error-rate.png";
  public static final String TOKENS_PNG = "tokens-per-second.png";
  public static final String HTML = "report.html";

  /** Written only when the producer scraped an inference engine (windows with its view). */
  public static final String ENGINE_PNG = "engine.png";

  /** Written only when series carry a sweep's {@code stage} label. */
  public static final String KNEE_PNG = "knee.png";

  /** Chart width in pixels. */
  public static final int WIDTH_PX = Charts.WIDTH;

  /** Chart height in pixels. */
  public static final int HEIGHT_PX = Charts.HEIGHT;

  private Report() {}

  /**
   * Renders {@code model} into {@code outDir} (created if missing).
   *
   * @param logScale latency axes on a log scale
   * @return the files written, the HTML last
   */
  public static List<Path> write(ReportModel model, Path outDir, boolean logScale) {
    Map<String, byte[]> charts = new LinkedHashMap<>();
    Map<String, String> titles = new LinkedHashMap<>();
    charts.put(TPOT_PNG, Charts.tpot(model, logScale));
    titles.put(TPOT_PNG, "TPOT p50, p99, p99.9 over time");
    charts.put(TTFT_PNG, Charts.ttft(model, logScale));
    titles.put(TTFT_PNG, "TTFT p50, p99 over time");
    charts.put(ERROR_RATE_PNG, Charts.errorRate(model));
    titles.put(ERROR_RATE_PNG, "Error rate over time");
    charts.put(TOKENS_PNG, Charts.tokensPerSecond(model));
    titles.put(TOKENS_PNG, "Output tokens per second");
    byte[] engine = Charts.engine(model, logScale);
    if (engine != null) {
      charts.put(ENGINE_PNG, engine);
      titles.put(ENGINE_PNG, "TPOT p99: client beside the engine's bucket");
    }
    byte[] knee = Charts.knee(model);
    if (knee != null) {
      charts.put(KNEE_PNG, knee);
      titles.put(KNEE_PNG, "TPOT against load: the sweep's stages");
    }
    try {
      Files.createDirectories(outDir);
      List<Path> written = new ArrayList<>();
      for (Map.Entry<String, byte[]> chart : charts.entrySet()) {
        written.add(replace(outDir.resolve(chart.getKey()), chart.getValue()));
      }
      byte[] html = HtmlReport.render(model, titles).getBytes(StandardCharsets.UTF_8);
      written.add(replace(outDir.resolve(HTML), html));
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the report into " + outDir + ": " + e.getMessage(), e);
    }
  }

  private static Path replace(Path target, byte[] bytes) throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    Files.write(temp, bytes);
    return Files.move(
        temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
