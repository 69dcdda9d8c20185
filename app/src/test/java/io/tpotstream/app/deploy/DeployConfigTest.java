package io.tpotstream.app.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.testkit.Promtool;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment files, checked without Docker: the Dockerfile against the root pom, the Prometheus
 * config and alert rules with promtool (including its rule unit tests), the Grafana dashboard's
 * queries parsed by promtool, and the compose file's references.
 */
class DeployConfigTest {
  @TempDir Path dir;

  private static List<String> pomModules() throws Exception {
    Matcher m =
        Pattern.compile("<module>([^<]+)</module>")
            .matcher(Files.readString(DeployFiles.ROOT.resolve("pom.xml")));
    List<String> modules = new ArrayList<>();
    while (m.find()) {
      modules.add(m.group(1).trim());
    }
    return modules;
  }

  @Test
  void dockerfileCopiesAndBuildsEveryModuleOfThePomAndRunsAsNonRoot() throws Exception {
    List<String> lines = Files.readAllLines(DeployFiles.ROOT.resolve("Dockerfile"));
    List<String> modules = pomModules();
    assertTrue(modules.contains("app") && modules.size() >= 9, "modules read: " + modules);
    for (String module : modules) {
      assertTrue(
          lines.contains("COPY " + module + " " + module),
          "the Dockerfile copies module " + module + " (the reactor needs every module)");
    }
    String build = lines.stream().filter(l -> l.startsWith("RUN ./mvnw")).findFirst().orElseThrow();
    assertFalse(build.contains("-pl"), "the image build compiles the whole reactor: " + build);

    int lastFrom = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("FROM ")) {
        lastFrom = i;
      }
    }
    List<String> finalStage = lines.subList(lastFrom, lines.size());
    String user =
        finalStage.stream().filter(l -> l.startsWith("USER ")).reduce((a, b) -> b).orElseThrow();
    String who = user.substring(5).split(":")[0].trim();
    assertFalse(who.equals("root") || who.equals("0"), user);
    assertTrue(finalStage.stream().anyMatch(l -> l.contains("/src/app/target/tpot.jar")));
  }

  @Test
  void dockerignoreLeavesOutBuildOutputButNoModuleSource() throws Exception {
    List<PathMatcher> ignored = new ArrayList<>();
    for (String line : Files.readAllLines(DeployFiles.ROOT.resolve(".dockerignore"))) {
      String pattern = line.trim();
      if (pattern.isEmpty() || pattern.startsWith("#")) {
        continue;
      }
      pattern = pattern.endsWith("/") ? pattern + "**" : pattern;
      ignored.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern));
      if (pattern.endsWith("/**")) {
        String dirOnly = pattern.substring(0, pattern.length() - 3);
        ignored.add(FileSystems.getDefault().getPathMatcher("glob:" + dirOnly));
      }
    }
    for (String module : pomModules()) {
      for (String kept :
          List.of(module + "/pom.xml", module + "/src/main/java/X.java", "pom.xml", "mvnw")) {
        assertFalse(
            ignored.stream().anyMatch(p -> p.matches(Path.of(kept))),
            ".dockerignore must keep " + kept);
      }
      assertTrue(
          ignored.stream().anyMatch(p -> p.matches(Path.of(module + "/target/classes/X.class"))),
          ".dockerignore leaves out " + module + "/target");
    }
  }

  @Tag("slow")
  @Test
  void composeRunsThePipelineWithPrometheusAndGrafanaOnFilesThatExist() throws Exception {
    String compose = Files.readString(DeployFiles.ROOT.resolve("docker-compose.yml"));
    for (String service :
        List.of("kafka", "simulator", "producer", "aggregator", "sink", "prometheus", "grafana")) {
      assertTrue(compose.contains("\n  " + service + ":\n"), "service " + service);
    }
    Matcher mounts = Pattern.compile("- \\./([^:]+):").matcher(compose);
    int count = 0;
    while (mounts.find()) {
      assertTrue(Files.exists(DeployFiles.ROOT.resolve(mounts.group(1))), mounts.group(1));
      count++;
    }
    assertEquals(4, count, "producer config, Prometheus, Grafana provisioning and dashboards");
    if (Promtool.onPath("docker-compose")) {
      Process check =
          new ProcessBuilder("docker-compose", "-f", "docker-compose.yml", "config", "-q")
              .directory(DeployFiles.ROOT.toFile())
              .redirectErrorStream(true)
              .start();
      String output = new String(check.getInputStream().readAllBytes());
      assertEquals(0, check.waitFor(), "docker-compose config:\n" + output);
    }
  }

  @Tag("slow")
  @Test
  void prometheusConfigAndAlertRulesPassPromtoolAndItsRuleTests() throws Exception {
    Promtool.assumeInstalled();
    Path prometheus = DeployFiles.PROMETHEUS;
    String config =
        Promtool.run(null, "check", "config", prometheus.resolve("prometheus.yml").toString());
    assertTrue(config.contains("1 rule files found"), config);
    String rules =
        Promtool.run(null, "check", "rules", prometheus.resolve("tpot-alerts.yml").toString());
    assertTrue(rules.contains("SUCCESS: 7 rules found"), rules);
    String tests =
        Promtool.run(null, "test", "rules", prometheus.resolve("tpot-alerts.test.yml").toString());
    assertTrue(tests.contains("SUCCESS"), tests);
  }

  @Tag("slow")
  @Test
  void everyDashboardQueryParsesAndUsesTheProvisionedDatasource() throws Exception {
    Promtool.assumeInstalled();
    List<String> expressions = DeployFiles.dashboardExpressions();
    assertTrue(expressions.size() >= 20, "queries: " + expressions.size());
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    for (int i = 0; i < expressions.size(); i++) {
      String expr = DeployFiles.asPromQl(expressions.get(i));
      rules
          .append("      - record: dashboard:query_")
          .append(i)
          .append("\n        expr: '")
          .append(expr.replace("'", "''"))
          .append("'\n");
    }
    Path file = dir.resolve("dashboard-queries.yml");
    Files.writeString(file, rules);
    String output = Promtool.run(null, "check", "rules", file.toString());
    assertTrue(output.contains("SUCCESS: " + expressions.size() + " rules found"), output);

    String datasource =
        Files.readString(
            DeployFiles.ROOT.resolve("deploy/grafana/provisioning/datasources/prometheus.yml"));
    JsonNode dashboard = Json.MAPPER.readTree(Files.readString(DeployFiles.DASHBOARD));
    for (JsonNode panel : dashboard.get("panels")) {
      String uid = panel.get("datasource").get("uid").asText();
      assertTrue(datasource.contains("uid: " + uid), panel.get("title").asText());
    }
  }
}
