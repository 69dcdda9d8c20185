package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.testing.VllmBodies;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus text parser reads what a real endpoint writes, and whatever else it is fed ends as
 * counted bad lines or its own one-line error: generated bodies (good lines among broken ones,
 * split at random points), mutated bodies, over-long lines, bad numbers and bodies past the bound.
 */
class ExpositionParserTest {
  private static final ExpositionParser.Limits LIMITS = ExpositionParser.Limits.DEFAULT;

  private static Exposition parse(String body) {
    return ExpositionParser.parse(body, f -> true, LIMITS);
  }

  private static Exposition.Sample sample(String name, double value, String... labels) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      map.put(labels[i], labels[i + 1]);
    }
    return new Exposition.Sample(name, map, value);
  }

  @Test
  void readsHelpAndTypeLinesLabelsEscapesTimestampsAndSpecialValues() {
    Exposition x =
        parse(
            """
            # HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
            # TYPE vllm:e2e_request_latency_seconds histogram
            vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="m"} 2.0
            vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 5.0
            vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 5.0 1765000000000
            odd{a="x\\"y\\\\z\\nw" , b = "" ,} NaN
            \tspaced   -Inf\r
            bare 1.5e-3
            neg{} -2 -17
            """);
    assertEquals(
        List.of(
            sample(
                "vllm:e2e_request_latency_seconds_bucket",
                2.0,
                "engine",
                "0",
                "le",
                "0.3",
                "model_name",
                "m")),
        x.named("vllm:e2e_request_latency_seconds_bucket").subList(0, 1));
    assertEquals(5.0, x.named("vllm:e2e_request_latency_seconds_count").get(0).value());
    assertEquals(List.of(sample("odd", Double.NaN, "a", "x\"y\\z\nw", "b", "")), x.named("odd"));
    assertEquals(List.of(sample("spaced", Double.NEGATIVE_INFINITY)), x.named("spaced"));
    assertEquals(List.of(sample("bare", 0.0015)), x.named("bare"));
    assertEquals(List.of(sample("neg", -2)), x.named("neg"));
    assertEquals(0, x.badLines());
    assertTrue(x.hasFamily("vllm:e2e_request_latency_seconds"));
  }

  @Test
  void onlyTheWantedFamiliesAreKeptTheOthersCounted() {
    Exposition x =
        ExpositionParser.parse(
            "a_total 1\na_created 2\nab 3\nb_bucket{le=\"1\"} 4\nc 5\n",
            f -> f.equals("a") || f.equals("b"),
            LIMITS);
    assertEquals(List.of("a_total", "a_created", "b_bucket"), List.copyOf(x.samples().keySet()));
    assertEquals(2, x.otherSamples());
    assertEquals(5, x.readableSamples());
  }

  /** Lines no reader accepts: each must count as one bad line and hide no good one. */
  private static final List<String> BROKEN =
      List.of(
          "m 1.5d",
          "m 0x1p3",
          "m Infinity1",
          "m 1,5",
          "m",
          "m{a=\"1\"}",
          "m{a=\"1\" 2",
          "m{a=1} 2",
          "m{a=\"x\\t\"} 2",
          "m{a=\"1\",a=\"2\"} 3",
          "m{1a=\"1\"} 2",
          "m{a=\"unclosed} 2",
          "m{a=\"1\"}2x",
          "m 1 2 3",
          "m 1 12a",
          "9m 1",
          "-m 1",
          "m\u00e9 1",
          "m{a=\"" + "v".repeat(1025) + "\"} 1",
          "m " + "1".repeat(70_000));

  @Test
  void generatedBodiesKeepEveryGoodSampleAndCountEveryBrokenLine() {
    String[] names = {"vllm:num_requests_running", "m", "m_bucket", "x:y_total", "_u"};
    String[][] values = {
      {"0", "0"}, {"1", "1"}, {"-2.5", "-2.5"}, {"1e3", "1000"}, {"+Inf", "Infinity"},
      {"-Inf", "-Infinity"}, {"NaN", "NaN"}, {".5", "0.5"}, {"3.", "3"}, {"1.5E-3", "0.0015"}
    };
    for (int seed = 0; seed < 200; seed++) {
      Random random = new Random(seed);
      StringBuilder body = new StringBuilder();
      List<Exposition.Sample> good = new ArrayList<>();
      int broken = 0;
      for (int line = 0; line < 40; line++) {
        if (random.nextInt(3) == 0) {
          body.append(BROKEN.get(random.nextInt(BROKEN.size())));
          broken++;
        } else if (random.nextInt(5) == 0) {
          body.append(random.nextBoolean() ? "# TYPE m gauge" : "");
        } else {
          String name = names[random.nextInt(names.length)];
          Map<String, String> labels = new LinkedHashMap<>();
          StringBuilder text = new StringBuilder(name);
          int count = random.nextInt(3);
          if (count > 0 || random.nextBoolean()) {
            text.append('{');
            for (int l = 0; l < count; l++) {
              String value = randomValue(random);
              labels.put("l" + l, value);
              text.append(l > 0 ? "," : "")
                  .append("l")
                  .append(l)
                  .append("=\"")
                  .append(value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                  .append('"');
            }
            text.append('}');
          }
          String[] v = values[random.nextInt(values.length)];
          text.append(' ').append(v[0]);
          if (random.nextBoolean()) {
            text.append(' ').append(1765000000000L + random.nextInt(1000));
          }
          body.append(text);
          good.add(new Exposition.Sample(name, labels, Double.parseDouble(v[1])));
        }
        body.append(random.nextInt(4) == 0 ? "\r\n" : "\n");
      }
      Exposition x = feedInPieces(body.toString().getBytes(StandardCharsets.UTF_8), random);
      List<Exposition.Sample> kept = new ArrayList<>();
      x.samples().values().forEach(kept::addAll);
      kept.sort(ExpositionParserTest::byText);
      good.sort(ExpositionParserTest::byText);
      assertEquals(good, kept, "seed " + seed);
      assertEquals(broken, x.badLines(), "seed " + seed);
    }
  }

  private static int byText(Exposition.Sample a, Exposition.Sample b) {
    return canonical(a).compareTo(canonical(b));
  }

  private static String canonical(Exposition.Sample s) {
    return s.name() + new java.util.TreeMap<>(s.labels()) + s.value();
  }

  private static String randomValue(Random random) {
    String chars = "ab\"\\\n ,={}é9";
    StringBuilder v = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      v.append(chars.charAt(random.nextInt(chars.length())));
    }
    return v.toString();
  }

  private static Exposition feedInPieces(byte[] body, Random random) {
    ExpositionParser parser = new ExpositionParser(f -> true, LIMITS);
    int at = 0;
    while (at < body.length) {
      int n = Math.min(body.length - at, 1 + random.nextInt(97));
      byte[] piece = new byte[n + 2];
      System.arraycopy(body, at, piece, 1, n);
      parser.accept(piece, 1, n);
      at += n;
    }
    return parser.finish();
  }

  @Test
  void mutatedBodiesEndAsCountedLinesNeverAsAnException() {
    byte[] real = VllmBodies.of("model-a", 1).text().getBytes(StandardCharsets.UTF_8);
    long lines = new String(real, StandardCharsets.UTF_8).lines().count();
    byte[] alphabet = "\n\r\"\\{}=, #+-.eE0123456789abcInfNa\t".getBytes(StandardCharsets.UTF_8);
    for (int seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      ByteArrayOutputStream mutated = new ByteArrayOutputStream();
      for (byte b : real) {
        int roll = random.nextInt(2000);
        if (roll == 0) {
          continue; // deleted
        }
        if (roll == 1) {
          mutated.write(alphabet[random.nextInt(alphabet.length)]);
        } else if (roll == 2) {
          mutated.write(random.nextInt(256)); // any byte, invalid UTF-8 too
        }
        mutated.write(roll == 3 ? alphabet[random.nextInt(alphabet.length)] : b);
      }
      byte[] body = mutated.toByteArray();
      Exposition x = feedInPieces(body, random);
      long bodyLines = new String(body, StandardCharsets.UTF_8).split("\n", -1).length;
      assertTrue(x.readableSamples() + x.badLines() <= bodyLines, "seed " + seed);
      assertTrue(x.readableSamples() > lines / 2, "seed " + seed + ": most lines survive");
    }
  }

  @Test
  void aLineLongerThanItsBoundIsSkippedAndTheNextOneRead() {
    ExpositionParser.Limits small = new ExpositionParser.Limits(1 << 20, 64, 10, 16);
    Exposition x =
        ExpositionParser.parse(
            "a 1\nb " + "9".repeat(100) + "\nc{l=\"" + "v".repeat(17) + "\"} 2\nd 3",
            f -> true,
            small);
    assertEquals(List.of("a", "d"), List.copyOf(x.samples().keySet()));
    assertEquals(2, x.badLines());
  }

  @Test
  void aBodyOfDistinctNamesIsCountedNotKept() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 200_000; i++) {
      body.append("n").append(i).append("{model_name=\"m").append(i).append("\"} 1\n");
    }
    Exposition x = ExpositionParser.parse(body.toString(), f -> f.equals("n7"), LIMITS);
    assertEquals(199_999, x.otherSamples());
    assertEquals(List.of(sample("n7", 1, "model_name", "m7")), x.named("n7"));
  }

  @Test
  void samplesPastTheBoundAreDroppedAndCounted() {
    ExpositionParser.Limits three = new ExpositionParser.Limits(1 << 20, 1024, 3, 16);
    Exposition x = ExpositionParser.parse("a 1\na 2\nb 3\nb 4\nc 5\n", f -> true, three);
    assertEquals(3, x.samples().values().stream().mapToInt(List::size).sum());
    assertEquals(2, x.droppedSamples());
    assertEquals(5, x.readableSamples());
  }

  @Test
  void aBodyPastItsBoundEndsWithOneLineAndNothingElse() {
    ExpositionParser.Limits kib = new ExpositionParser.Limits(1024, 1024, 10, 16);
    ExpositionParser parser = new ExpositionParser(f -> true, kib);
    byte[] piece = "a 1\n".repeat(200).getBytes(StandardCharsets.UTF_8);
    parser.accept(piece, 0, 512);
    ExpositionException e =
        assertThrows(ExpositionException.class, () -> parser.accept(piece, 0, 600));
    assertEquals("body larger than 1 KiB", e.getMessage());
    assertEquals(
        "body larger than 16 MiB",
        assertThrows(
                ExpositionException.class,
                () ->
                    new ExpositionParser(f -> true, LIMITS)
                        .accept(new byte[(16 << 20) + 1], 0, (16 << 20) + 1))
            .getMessage());
  }

  @Test
  void numbersAreReadAsPrometheusReadsThem() {
    assertEquals(1.0, ExpositionParser.number("1"));
    assertEquals(Double.POSITIVE_INFINITY, ExpositionParser.number("+Inf"));
    assertEquals(Double.POSITIVE_INFINITY, ExpositionParser.number("inf"));
    assertEquals(Double.NEGATIVE_INFINITY, ExpositionParser.number("-Inf"));
    assertTrue(ExpositionParser.number("NaN").isNaN());
    assertEquals(-0.25, ExpositionParser.number("-2.5e-1"));
    for (String bad : List.of("", "1d", "1f", "0x10", "1_000", "Infinityx", "--1", "1e", ".")) {
      assertEquals(null, ExpositionParser.number(bad), bad);
    }
  }
}
