package io.tpotstream.sink.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Series;
import io.tpotstream.common.summary.WindowStats;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KneeChartTest {
  @TempDir Path dir;

  private static void stage(ReportModel model, String stage, long gapUs) {
    Map<String, String> labels = Map.of("stage", stage);
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(gapUs, 100);
    model.add(stats.toSummary(Series.name("m", labels), "m", labels, 0, 10_000));
  }

  @Test
  void aSweepGetsAChartOfTpotAgainstLoad() throws Exception {
    System.setProperty("java.awt.headless", "true");
    ReportModel model = new ReportModel();
    stage(model, "concurrency-1", 1_000);
    stage(model, "concurrency-4", 1_200);
    stage(model, "concurrency-16", 5_000);
    Report.write(model, dir, false);
    BufferedImage knee = ImageIO.read(dir.resolve(Report.KNEE_PNG).toFile());
    assertEquals(Report.WIDTH_PX, knee.getWidth());
    assertEquals(Report.HEIGHT_PX, knee.getHeight());
    String html = Files.readString(dir.resolve(Report.HTML));
    assertTrue(
        html.contains("TPOT against load: the sweep&#39;s stages")
            || html.contains("TPOT against load"));
    assertTrue(html.contains("href=\"knee.png\""));
  }

  @Test
  void withoutStagesThereIsNoKneeChart() throws Exception {
    System.setProperty("java.awt.headless", "true");
    ReportModel model = new ReportModel();
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(1_000, 10);
    model.add(stats.toSummary("m", "m", Map.of(), 0, 10_000));
    Report.write(model, dir, false);
    assertFalse(Files.exists(dir.resolve(Report.KNEE_PNG)));
    assertEquals(null, Charts.knee(model));
  }
}
