package io.tpotstream.sink.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The self-contained HTML pages ({@code report.html}, {@code compare.html}): a template resource of
 * this package whose {@code {{name}}} slots are filled once, in one pass over the template (so a
 * filled value is never searched for slots). Every page gets the style {@code page.css}, {@code
 * errors.js} (first: it records any script error for the page and the tests), the vendored uPlot
 * ({@value #UPLOT_VERSION}, {@code uplot/README.md}), the chart script {@code charts.js} and its
 * chart data as JSON in {@code {{data}}}: no network at view time.
 */
public final class PageTemplate {
  /** The vendored uPlot's version (npm package {@code uplot}). */
  public static final String UPLOT_VERSION = "1.6.32";

  private static final Pattern SLOT = Pattern.compile("\\{\\{([a-z-]+)}}");

  private PageTemplate() {}

  /**
   * The template {@code name} with {@code values} in its slots, plus {@code error-catcher}, {@code
   * page-css}, {@code uplot-css}, {@code uplot-js}, {@code charts-js} and {@code data} ({@code
   * data} as JSON).
   *
   * @throws IllegalStateException when a slot has no value or a value no slot (a template bug)
   */
  public static String fill(String name, Map<String, String> values, Object data) {
    Map<String, String> all = new HashMap<>(values);
    all.put("error-catcher", resource("errors.js"));
    all.put("page-css", resource("page.css"));
    all.put("uplot-css", resource("uplot/uPlot.min.css"));
    all.put("uplot-js", resource("uplot/uPlot.iife.min.js"));
    all.put("charts-js", resource("charts.js"));
    all.put("data", json(data));
    String template = resource(name);
    Matcher slot = SLOT.matcher(template);
    StringBuilder page = new StringBuilder(template.length() + all.get("data").length() + 4096);
    Set<String> used = new HashSet<>();
    while (slot.find()) {
      String value = all.get(slot.group(1));
      if (value == null) {
        throw new IllegalStateException(name + " has a slot {{" + slot.group(1) + "}} not filled");
      }
      used.add(slot.group(1));
      slot.appendReplacement(page, Matcher.quoteReplacement(value));
    }
    slot.appendTail(page);
    if (!used.containsAll(all.keySet())) {
      all.keySet().removeAll(used);
      throw new IllegalStateException(name + " has no slot for " + all.keySet());
    }
    return page.toString();
  }

  /**
   * {@code data} as compact JSON to sit in a {@code <script type="application/json">}: every {@code
   * <} escaped, so that a series name cannot close the element.
   */
  static String json(Object data) {
    try {
      return Json.MAPPER.writeValueAsString(data).replace("<", "\\u003c");
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the chart data as JSON", e);
    }
  }

  /** {@code text} safe in HTML text and in a double-quoted attribute. */
  public static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static String resource(String name) {
    try (InputStream in = PageTemplate.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource " + name + " is missing beside " + PageTemplate.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the resource " + name, e);
    }
  }
}
