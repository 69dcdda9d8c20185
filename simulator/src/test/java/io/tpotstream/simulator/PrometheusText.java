package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reader of Prometheus' text exposition format 0.0.4 that checks what a scraper relies on: every
 * line a comment or a sample, each family's samples together after its {@code # TYPE}, and each
 * histogram series' {@code _bucket} lines in increasing {@code le}, cumulative (never decreasing),
 * ending at {@code +Inf} equal to its {@code _count}, with a {@code _sum}.
 */
final class PrometheusText {
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\[\\\\\"n])*)\"(,|$)");

  /** One sample: its name, its labels in order, its value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;

  private PrometheusText(List<Sample> samples) {
    this.samples = samples;
  }

  /** Parses {@code text}, failing the test at the first line that breaks the format. */
  static PrometheusText parse(String text) {
    assertTrue(text.isEmpty() || text.endsWith("\n"), "the text ends with a line feed");
    Map<String, String> types = new LinkedHashMap<>();
    Set<String> closed = new HashSet<>();
    String current = null;
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# HELP ")) {
        continue;
      }
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        assertEquals(4, parts.length, line);
        assertTrue(types.put(parts[2], parts[3]) == null, "one TYPE per family: " + line);
        if (current != null) {
          closed.add(current);
        }
        current = parts[2];
        continue;
      }
      Matcher sample = SAMPLE.matcher(line);
      assertTrue(sample.matches(), "not a sample line: " + line);
      String name = sample.group(1);
      String family = familyOf(name, types);
      assertEquals(current, family, "a sample outside its family's block: " + line);
      assertTrue(!closed.contains(family), "a family in two blocks: " + line);
      samples.add(new Sample(name, labels(sample.group(2), line), value(sample.group(3), line)));
    }
    PrometheusText parsed = new PrometheusText(samples);
    types.forEach(
        (family, type) -> {
          if (type.equals("histogram")) {
            parsed.checkHistogram(family);
          }
        });
    return parsed;
  }

  private static String familyOf(String name, Map<String, String> types) {
    if (types.containsKey(name)) {
      return name;
    }
    for (String suffix : List.of("_bucket", "_count", "_sum")) {
      String base = name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : "";
      if ("histogram".equals(types.get(base))) {
        return base;
      }
    }
    throw new AssertionError("a sample of no declared family: " + name);
  }

  private static Map<String, String> labels(String text, String line) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (text == null) {
      return labels;
    }
    Matcher label = LABEL.matcher(text);
    int at = 0;
    while (at < text.length()) {
      assertTrue(label.find(at) && label.start() == at, "bad labels: " + line);
      String value =
          label.group(2).replace("\\\\", "\u0000").replace("\\\"", "\"").replace("\\n", "\n");
      assertTrue(
          labels.put(label.group(1), value.replace("\u0000", "\\")) == null,
          "a label twice: " + line);
      at = label.end();
    }
    return labels;
  }

  private static double value(String text, String line) {
    if (text.equals("+Inf") || text.equals("-Inf") || text.equals("NaN")) {
      return Double.parseDouble(text.replace("+", "").replace("Inf", "Infinity"));
    }
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new AssertionError("not a number: " + line, e);
    }
  }

  private void checkHistogram(String family) {
    Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
    for (Sample sample : samples) {
      if (sample.name().equals(family + "_bucket")) {
        Map<String, String> series = new TreeMap<>(sample.labels());
        assertTrue(series.remove("le") != null, "a bucket without le: " + sample);
        buckets.computeIfAbsent(series, s -> new ArrayList<>()).add(sample);
      }
    }
    buckets.forEach(
        (series, lines) -> {
          double lastLe = Double.NEGATIVE_INFINITY;
          double lastCount = 0;
          for (Sample bucket : lines) {
            String le = bucket.labels().get("le");
            double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            assertTrue(bound > lastLe, family + " " + series + ": le must increase at " + le);
            assertTrue(bucket.value() >= lastCount, family + " " + series + ": not cumulative");
            lastLe = bound;
            lastCount = bucket.value();
          }
          assertEquals(Double.POSITIVE_INFINITY, lastLe, family + " " + series + " ends at +Inf");
          assertEquals(lastCount, value(family + "_count", series), family + " +Inf = _count");
          value(family + "_sum", series);
        });
  }

  /** Every sample, in order. */
  List<Sample> samples() {
    return samples;
  }

  /** The value of the one sample {@code name} whose labels are exactly {@code labels}. */
  double value(String name, Map<String, String> labels) {
    List<Double> found =
        samples.stream()
            .filter(
                s ->
                    s.name().equals(name)
                        && new TreeMap<>(s.labels()).equals(new TreeMap<>(labels)))
            .map(Sample::value)
            .toList();
    assertEquals(1, found.size(), "one sample " + name + labels);
    return found.get(0);
  }

  /**
   * As {@link #value(String, Map)}, for model {@code model} of engine 0 and {@code more} labels.
   */
  double value(String name, String model, String... more) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("model_name", model);
    labels.put("engine", "0");
    for (int i = 0; i < more.length; i += 2) {
      labels.put(more[i], more[i + 1]);
    }
    return value(name, labels);
  }
}
