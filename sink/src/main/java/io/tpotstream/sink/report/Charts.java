package io.tpotstream.sink.report;

import io.tpotstream.common.stats.LatencySummary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Stroke;
import java.awt.geom.Ellipse2D;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Set;
import java.util.TimeZone;
import java.util.function.Function;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.DateAxis;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.RangeType;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The report's PNG line charts (JFreeChart, headless), one line per series and statistic over
 * window end time. A series keeps its colour in every chart (colours follow the sorted series
 * order); the statistic is told by the line style (p50 solid, p99 dashed, p99.9 dotted).
 */
public final class Charts {
  /** Width of every chart, in pixels. */
  static final int WIDTH = 1200;

  /** Height of every chart, in pixels. */
  static final int HEIGHT = 600;

  /**
   * The narrowest time axis, in ms: a run of one window (or a few) gets a minute around its points,
   * ticked in whole seconds, instead of 2 ms ticked 11:50:39.999 and 11:50:40.000.
   */
  static final long MIN_TIME_RANGE_MS = 60_000;

  /** Error rate above which the seed's users distrust a batch's percentiles, in %. */
  private static final double ERROR_RATE_WARNING_PERCENT = 5.0;

  private static final Color[] PALETTE =
      ChartData.PALETTE.stream().map(Color::decode).toArray(Color[]::new);

  private static final Stroke SOLID = new BasicStroke(2.0f);
  private static final Stroke DASHED =
      new BasicStroke(
          2.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
  private static final Stroke DOTTED =
      new BasicStroke(
          2.0f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10f, new float[] {1f, 5f}, 0f);
  private static final Stroke[] STYLES = {SOLID, DASHED, DOTTED};

  private Charts() {}

  /** One statistic to plot: its legend suffix and how to read it from a window, in plot units. */
  record Line(String name, Function<WindowPoint, BigDecimal> value) {}

  static final List<Line> TPOT_LINES =
      List.of(
          new Line("p50", WindowPoint::tpotP50Ms),
          new Line("p99", WindowPoint::tpotP99Ms),
          new Line("p99.9", WindowPoint::tpotP999Ms));

  static final List<Line> TTFT_LINES =
      List.of(new Line("p50", WindowPoint::ttftP50Ms), new Line("p99", WindowPoint::ttftP99Ms));

  /** The client's TPOT p99 beside the ends of the engine's p99 bucket. */
  static final List<Line> ENGINE_LINES =
      List.of(
          new Line("client p99", WindowPoint::tpotP99Ms),
          new Line("engine p99 lo", WindowPoint::engineTpotP99LoMs),
          new Line("engine p99 hi", WindowPoint::engineTpotP99HiMs));

  /** The bounds of the time added outside the engine at TPOT p99. */
  static final List<Line> OUTSIDE_LINES =
      List.of(
          new Line("outside p99 lo", WindowPoint::outsideTpotP99LoMs),
          new Line("outside p99 hi", WindowPoint::outsideTpotP99HiMs));

  static byte[] tpot(ReportModel model, boolean logScale) {
    return latency(model, "TPOT", logScale, TPOT_LINES);
  }

  static byte[] ttft(ReportModel model, boolean logScale) {
    return latency(model, "TTFT", logScale, TTFT_LINES);
  }

  /** A latency's percentiles per window, e.g. "TPOT per series: p50, p99 and p99.9 per window". */
  private static byte[] latency(
      ReportModel model, String what, boolean logScale, List<Line> lines) {
    List<String> names = lines.stream().map(Line::name).toList();
    String last = names.get(names.size() - 1);
    String listed =
        names.size() == 1
            ? last
            : String.join(", ", names.subList(0, names.size() - 1)) + " and " + last;
    return png(
        model,
        what + " per series: " + listed + " per window",
        what + (logScale ? " (ms, log scale)" : " (ms)"),
        logScale,
        lines);
  }

  /**
   * The client's TPOT p99 per window beside the engine's own p99 bucket (its lower end dashed, its
   * upper end dotted), for the series whose producer scraped an inference engine; null when none
   * did.
   */
  static byte[] engine(ReportModel model, boolean logScale) {
    if (model.engines().isEmpty()) {
      return null;
    }
    return render(
        plot(
            model,
            "TPOT p99" + (logScale ? " (ms, log scale)" : " (ms)"),
            logScale,
            ENGINE_LINES,
            model.engines().keySet()),
        "TPOT p99 per window: client (solid) and the engine's bucket, lo (dashed) to hi (dotted)",
        18,
        WIDTH,
        HEIGHT);
  }

  static byte[] errorRate(ReportModel model) {
    return render(errorRatePlot(model), "Error rate per series per window", 18, WIDTH, HEIGHT);
  }

  /**
   * The error-rate chart's plot, in %: its y axis starts at 0 and is at least 1 % tall, so a run
   * without errors gets 0 to 1 % (not ±5e-9).
   */
  static XYPlot errorRatePlot(ReportModel model) {
    ValueMarker warning = new ValueMarker(ERROR_RATE_WARNING_PERCENT);
    warning.setPaint(Color.GRAY);
    warning.setStroke(DASHED);
    warning.setLabel("5%: percentiles above this error rate are not trustworthy");
    warning.setLabelAnchor(RectangleAnchor.TOP_LEFT);
    warning.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
    XYPlot plot =
        plot(
            model,
            "failed + abandoned requests (% of finished)",
            false,
            List.of(
                new Line(
                    "error rate",
                    p -> p.errorRate() == null ? null : p.errorRate().movePointRight(2))));
    plot.addRangeMarker(warning);
    NumberAxis percent = (NumberAxis) plot.getRangeAxis();
    percent.setAutoRangeMinimumSize(1.0);
    percent.configure();
    return plot;
  }

  static byte[] tokensPerSecond(ReportModel model) {
    return png(
        model,
        "Output tokens per second per series",
        "output tokens / s",
        false,
        List.of(new Line("tokens/s", WindowPoint::tokensPerSecond)));
  }

  /**
   * The knee of a sweep: per series without its {@code stage} label, the whole-stage TPOT p50 and
   * p99 against the stage's load; null when no series carries a {@code stage} label with a load.
   */
  static byte[] knee(ReportModel model) {
    Knee knee = Knee.of(model);
    if (knee == null) {
      return null;
    }
    var lines = knee.lines();
    XYSeriesCollection dataset = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    int s = 0;
    for (var line : lines.entrySet()) {
      for (int l = 0; l < 2; l++) {
        XYSeries xy = new XYSeries(line.getKey() + (l == 0 ? " p50" : " p99"), true, true);
        for (var point : line.getValue().entrySet()) {
          LatencySummary tpot = point.getValue().tpot();
          BigDecimal ms = tpot == null ? null : l == 0 ? tpot.p50Ms() : tpot.p99Ms();
          if (ms != null) {
            xy.add(point.getKey().doubleValue(), ms.doubleValue());
          }
        }
        int index = dataset.getSeriesCount();
        dataset.addSeries(xy);
        renderer.setSeriesPaint(index, PALETTE[s % PALETTE.length]);
        renderer.setSeriesStroke(index, STYLES[l]);
        renderer.setSeriesShape(index, new Ellipse2D.Double(-3, -3, 6, 6));
      }
      s++;
    }
    NumberAxis x = new NumberAxis(knee.xLabel());
    x.setAutoRangeIncludesZero(true);
    NumberAxis y = new NumberAxis("TPOT over the whole stage (ms)");
    y.setAutoRangeIncludesZero(true);
    XYPlot plot = new XYPlot(dataset, x, y, renderer);
    return render(plot, "TPOT p50 and p99 against load (sweep stages)", 18, WIDTH, HEIGHT);
  }

  /**
   * A plot as a PNG of {@code width} × {@code height} px with the charts' look (white, light grid,
   * a legend): the one place the PNG charts are rendered.
   */
  public static byte[] render(XYPlot plot, String title, int titleSize, int width, int height) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart =
        new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, titleSize), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ChartUtils.writeChartAsPNG(out, chart, width, height);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render the chart '" + title + "'", e);
    }
    return out.toByteArray();
  }

  private static byte[] png(
      ReportModel model, String title, String yLabel, boolean logScale, List<Line> lines) {
    return render(plot(model, yLabel, logScale, lines), title, 18, WIDTH, HEIGHT);
  }

  /** One line per series and statistic over window end time; a linear y axis starts at 0. */
  private static XYPlot plot(ReportModel model, String yLabel, boolean logScale, List<Line> lines) {
    return plot(model, yLabel, logScale, lines, Set.copyOf(model.seriesNames()));
  }

  /** As above, for the series in {@code shown} only, each in the colour it has in every chart. */
  private static XYPlot plot(
      ReportModel model, String yLabel, boolean logScale, List<Line> lines, Set<String> shown) {
    XYSeriesCollection dataset = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    List<String> names = model.seriesNames();
    for (int s = 0; s < names.size(); s++) {
      if (!shown.contains(names.get(s))) {
        continue;
      }
      List<WindowPoint> points = model.points(names.get(s));
      for (int l = 0; l < lines.size(); l++) {
        Line line = lines.get(l);
        String key = lines.size() == 1 ? names.get(s) : names.get(s) + " " + line.name();
        XYSeries xy = new XYSeries(key, false, true);
        for (WindowPoint p : points) {
          BigDecimal value = line.value().apply(p);
          boolean plottable = value != null && (!logScale || value.signum() > 0);
          xy.add(p.windowEndMs(), plottable ? value.doubleValue() : null);
        }
        int index = dataset.getSeriesCount();
        dataset.addSeries(xy);
        renderer.setSeriesPaint(index, PALETTE[s % PALETTE.length]);
        renderer.setSeriesStroke(index, STYLES[l % STYLES.length]);
        renderer.setSeriesShape(index, new Ellipse2D.Double(-2.5, -2.5, 5, 5));
      }
    }
    DateAxis time = new DateAxis("window end (UTC)");
    time.setTimeZone(TimeZone.getTimeZone("UTC"));
    time.setAutoRangeMinimumSize(MIN_TIME_RANGE_MS);
    ValueAxis y;
    if (logScale) {
      LogarithmicAxis log = new LogarithmicAxis(yLabel);
      log.setStrictValuesFlag(false);
      log.setAllowNegativesFlag(false);
      y = log;
    } else {
      NumberAxis linear = new NumberAxis(yLabel);
      linear.setAutoRangeIncludesZero(true);
      linear.setRangeType(RangeType.POSITIVE);
      y = linear;
    }
    return new XYPlot(dataset, time, y, renderer);
  }
}
