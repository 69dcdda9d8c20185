package io.tpotstream.app.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  /** The dashboard's expressions as Prometheus can parse them: Grafana's variables replaced. */
  public static String asPromQl(String expression) {
    return expression.replace("$__rate_interval", "1m").replace("$model", ".*");
  }
}
