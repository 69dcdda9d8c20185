package io.tpotstream.app.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The repository's deployment files as the tests read them. */
public final class DeployFiles {
  public static final Path ROOT = Path.of("..");
  public static final Path PROMETHEUS = ROOT.resolve("deploy/prometheus");
  public static final Path DASHBOARD = ROOT.resolve("deploy/grafana/dashboards/tpot.json");

  private static final Pattern TPOT_NAME = Pattern.compile("\\btpot_[a-z0-9_]+");

  private DeployFiles() {}

  /** Every PromQL expression of the dashboard's panels, in panel order. */
  public static List<String> dashboardExpressions() throws IOException {
    JsonNode dashboard = Json.MAPPER.readTree(Files.readString(DASHBOARD));
    List<String> expressions = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.get("targets")) {
        expressions.add(target.get("expr").asText());
      }
    }
    return expressions;
  }

  /**
   * The metric families named in {@code text}: {@code tpot_} names without the {@code _bucket},
   * {@code _count}, {@code _sum} suffixes of a histogram (a counter keeps {@code _total}, as the
   * text format serves it).
   */
  public static Set<String> tpotNames(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = TPOT_NAME.matcher(text);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /**
   * Whether the sink serves {@code name} only once a window summary carries an engine section (the
   * producer scraped an inference engine's metrics): {@link EngineDashboardTest} checks these
   * against a sink fed such summaries of known values.
   */
  public static boolean servedWithAnEngineOnly(String name) {
    return name.startsWith("tpot_window_engine_") || name.startsWith("tpot_window_outside_engine_");
  }

  /**
   * The Kafka Connect worker and connector properties that docs/sink.md shows, in that order: the
   * {@code properties} blocks of its Kafka Connect section.
   */
  public static List<Properties> connectProperties() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/sink.md"));
    int start = page.indexOf("\n## Kafka Connect");
    String section = page.substring(start, page.indexOf("\n## ", start + 1));
    Matcher block = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL).matcher(section);
    List<Properties> blocks = new ArrayList<>();
    while (block.find()) {
      Properties properties = new Properties();
      properties.load(new StringReader(block.group(1)));
      blocks.add(properties);
    }
    if (blocks.size() != 2) {
      throw new IllegalStateException(
          "docs/sink.md's Kafka Connect section has 2 properties blocks");
    }
    return blocks;
  }

  /** The dashboard's expressions as Prometheus can parse them: Grafana's variables replaced. */
  public static String asPromQl(String expression) {
    return expression.replace("$__rate_interval", "1m").replace("$model", ".*");
  }
}
