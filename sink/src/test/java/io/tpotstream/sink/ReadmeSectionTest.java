package io.tpotstream.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.prometheus.PrometheusEndpoint;
import io.tpotstream.sink.prometheus.PrometheusEndpointTest;
import io.tpotstream.sink.prometheus.PrometheusView;
import io.tpotstream.sink.record.EngineRun;
import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.sink.record.WholeRunTable;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples in the sink's docs page match the real field and metric names. */
class ReadmeSectionTest {
  private static final List<String> COLUMNS = FlatRecord.columns(List.of("concurrency"));

  @TempDir Path dir;

  /** The sink's docs page, where the CSV, JSON, Telegraf and ClickHouse examples live. */
  private static String readme() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "sink.md"));
    assertTrue(page.startsWith("# Sink:"), "docs/sink.md is the sink's page");
    return page;
  }

  private static String block(String readme, String language) {
    Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertTrue(m.find(), "a ```" + language + " block");
    return m.group(1);
  }

  private static List<String> quoted(String text) {
    List<String> names = new ArrayList<>();
    Matcher m = Pattern.compile("\"([a-z0-9_]+)\"").matcher(text);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void sampleRecordIsWhatTheSinkWrites() throws Exception {
    String readme = readme();
    FlatRecord sample =
        FlatRecord.of(TestWindows.known("gpt-4o-mini", Map.of("concurrency", "10"), 1));

    assertEquals(
        String.join(",", COLUMNS)
            + "\n"
            + String.join(",", sample.cells(List.of("concurrency")))
            + "\n",
        block(readme, "csv"));
    assertEquals(new String(sample.toJson(), StandardCharsets.UTF_8) + "\n", block(readme, "json"));
  }

  @Test
  void telegrafConfigNamesEveryFieldExactly() throws Exception {
    String toml = block(readme(), "toml");
    Matcher tags = Pattern.compile("tags = \\[(.*?)]").matcher(toml);
    Matcher excluded = Pattern.compile("excluded_keys = \\[(.*?)]").matcher(toml);
    assertTrue(tags.find() && excluded.find());
    Set<String> named = new LinkedHashSet<>(quoted(tags.group(1)));
    named.addAll(quoted(excluded.group(1)));
    String fields = toml.substring(toml.indexOf("object.fields]"));
    Matcher typed = Pattern.compile("\n\\s+([a-z0-9_]+) = \"(int|float|bool)\"").matcher(fields);
    while (typed.find()) {
      assertTrue(named.add(typed.group(1)), "named once: " + typed.group(1));
    }

    assertEquals(new TreeSet<>(COLUMNS), new TreeSet<>(named));
    assertTrue(toml.contains("timestamp_path = \"ts\""));
    assertTrue(toml.contains("topics = [\"tpot.metrics\"]"));
  }

  @Test
  void clickhouseQueueTableHasTheRecordsColumnsInOrder() throws Exception {
    String sql = block(readme(), "sql");
    String queue = sql.substring(sql.indexOf("(\n") + 2, sql.indexOf("\n)\nENGINE = Kafka"));
    List<String> columns = new ArrayList<>();
    for (String line : queue.split("\n")) {
      columns.add(line.trim().split(" ")[0]);
    }

    assertEquals(COLUMNS, columns);
    assertTrue(sql.contains("kafka_topic_list = 'tpot.metrics'"));
    assertTrue(sql.contains("kafka_format = 'JSONEachRow'"));
  }

  @Test
  void prometheusMetricNamesInTheReadmeAreServed() throws Exception {
    String readme = readme();
    String section =
        readme.substring(readme.indexOf("\n## Prometheus"), readme.indexOf("\n## Charts"));
    WindowStats stats = TestWindows.stats("m", Map.of(), 0);
    stats.clientPause(2_000);
    PrometheusView view = new PrometheusView();
    view.add(TestWindows.of("m", Map.of(), 0, stats));
    view.add(TestWindows.knownWithEngine("e", Map.of(), 0)); // the engine's families
    PromText served;
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      served = PromText.parse(PrometheusEndpointTest.scrape(endpoint.port()));
    }

    Matcher names = Pattern.compile("`((tpot|ttft)_[a-z0-9_]+)").matcher(section);
    Set<String> mentioned = new TreeSet<>();
    while (names.find()) {
      mentioned.add(names.group(1));
    }
    for (String name : mentioned) {
      assertTrue(
          served.types.containsKey(name)
              || served.samples.stream().anyMatch(s -> s.name().equals(name)),
          name + " is served");
    }
    for (String family : served.types.keySet()) {
      // a counter's or histogram's created timestamp: documented once for all of them
      String base = family.replaceFirst("_created$", "");
      boolean created =
          !base.equals(family)
              && section.contains("`_created`")
              && (mentioned.contains(base + "_total") || mentioned.contains(base));
      assertTrue(mentioned.contains(family) || created, family + " is served but not documented");
    }
  }

  @Test
  void theEngineSectionsSamplesAreWhatTheSinkWrites() throws Exception {
    String readme = readme();
    String section =
        readme.substring(
            readme.indexOf("\n## The engine's view"), readme.indexOf("\n## Comparing two runs"));
    WindowSummary sample =
        TestWindows.knownWithEngine("gpt-4o-mini", Map.of("concurrency", "10"), 1);

    assertEquals(
        new String(FlatRecord.of(sample).toJson(), StandardCharsets.UTF_8) + "\n",
        block(section, "json"));
    PrometheusView view = new PrometheusView();
    view.add(sample);
    List<String> served;
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      served = List.of(PrometheusEndpointTest.scrape(endpoint.port()).split("\n"));
    }
    // the unlabelled blocks: a fence after a blank line opens one
    List<String> blocks = new ArrayList<>();
    Matcher plain = Pattern.compile("\n\n```\n(.*?)```", Pattern.DOTALL).matcher(section);
    while (plain.find()) {
      blocks.add(plain.group(1));
    }
    assertEquals(2, blocks.size(), "an exposition and a table");
    List<String> shown = List.of(blocks.get(0).split("\n"));
    assertEquals(4, shown.size(), "the exposition sample");
    for (String line : shown) {
      assertTrue(served.contains(line), line + " is served");
    }
    EngineRun run = new EngineRun();
    run.add(TestWindows.knownEngine());
    run.add(TestWindows.provenEngine());
    String table =
        WholeRunTable.format(
            List.of(TestWindows.known("model-a", Map.of(), 0)), Map.of("model-a", run));
    assertEquals(table.substring(table.indexOf("Engine as")), blocks.get(1));
  }

  @Tag("slow")
  @Test
  void prometheusScrapeConfigPassesPromtool() throws Exception {
    Promtool.assumeInstalled();
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, block(readme(), "yaml"));

    Process promtool =
        new ProcessBuilder("promtool", "check", "config", config.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(promtool.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, promtool.exitValue(), output);
  }
}
