package io.tpotstream.testkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A strict reader of the Prometheus text format (version 0.0.4) for tests: every line must be a
 * HELP, a TYPE or a sample, every sample must belong to a family declared by TYPE, label values are
 * unescaped.
 */
public final class PromText {
  public record Sample(String name, Map<String, String> labels, double value) {}

  public final Map<String, String> types = new LinkedHashMap<>();
  public final List<Sample> samples = new java.util.ArrayList<>();

  public static PromText parse(String text) {
    PromText parsed = new PromText();
    for (String line : text.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("# HELP ")) {
        continue;
      }
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.substring(7).split(" ");
        if (parts.length != 2) {
          throw new IllegalArgumentException("bad TYPE line: " + line);
        }
        parsed.types.put(parts[0], parts[1]);
        continue;
      }
      parsed.samples.add(parsed.sample(line));
    }
    return parsed;
  }

  /** The value of the one sample named {@code name} with exactly {@code labels}. */
  public double value(String name, Map<String, String> labels) {
    List<Sample> found =
        samples.stream()
            .filter(s -> s.name().equals(name) && s.labels().equals(new TreeMap<>(labels)))
            .toList();
    if (found.size() != 1) {
      throw new AssertionError(found.size() + " samples " + name + labels);
    }
    return found.get(0).value();
  }

  private Sample sample(String line) {
    int i = 0;
    while (i < line.length()
        && (Character.isLetterOrDigit(line.charAt(i))
            || line.charAt(i) == '_'
            || line.charAt(i) == ':')) {
      i++;
    }
    String name = line.substring(0, i);
    if (name.isEmpty() || Character.isDigit(name.charAt(0))) {
      throw new IllegalArgumentException("bad metric name in: " + line);
    }
    Map<String, String> labels = new TreeMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String label = line.substring(i, eq);
        if (line.charAt(eq + 1) != '"') {
          throw new IllegalArgumentException("unquoted label value in: " + line);
        }
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        for (; line.charAt(j) != '"'; j++) {
          char c = line.charAt(j);
          if (c == '\\') {
            char next = line.charAt(++j);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(c);
          }
        }
        if (labels.put(label, value.toString()) != null) {
          throw new IllegalArgumentException("duplicate label " + label + " in: " + line);
        }
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        }
      }
      i++;
    }
    if (line.charAt(i) != ' ') {
      throw new IllegalArgumentException("no value in: " + line);
    }
    String family = family(name);
    if (!types.containsKey(family)) {
      throw new IllegalArgumentException("sample of an undeclared family: " + line);
    }
    return new Sample(name, labels, Double.parseDouble(line.substring(i + 1).trim()));
  }

  private String family(String name) {
    if (types.containsKey(name)) {
      return name;
    }
    for (String suffix : new String[] {"_count", "_sum", "_bucket", "_total"}) {
      String base =
          name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : null;
      String type = base == null ? null : types.get(base);
      if (type != null
          && (suffix.equals("_total")
              ? type.equals("counter")
              : type.equals("histogram")
                  || (type.equals("summary") && !suffix.equals("_bucket")))) {
        return base;
      }
    }
    return name;
  }

  /** The sample values by name and labels, to compare two scrapes. */
  public Map<String, Double> byKey() {
    Map<String, Double> values = new TreeMap<>();
    for (Sample s : samples) {
      values.put(s.name() + s.labels(), s.value());
    }
    return values;
  }
}
