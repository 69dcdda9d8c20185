package io.tpotstream.producer.workload;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The sample traces in {@code docs/traces}, written for the project from seeded draws (no line is
 * taken from a published trace): {@link #mooncake()} (300 requests in about 30 s, Mooncake's four
 * fields, blocks of 512 tokens shared by system prompts and by conversations that go on), {@link
 * #azure()} (300 rows of the Azure CSV in about 30 s) and {@link #tpot()} (200 requests of tpot's
 * format: sessions of one to five turns on two models, blocks of 64 tokens, labels). {@link
 * SampleTracesTest} holds the files to these; {@code -Dtpot.writeSampleTraces=true} rewrites them.
 */
final class SampleTraces {
  static final Path DIR = Path.of("..", "docs", "traces");
  static final String MOONCAKE = "mooncake-sample.jsonl";
  static final String AZURE = "azure-sample.csv";
  static final String TPOT = "tpot-sample.jsonl";

  private SampleTraces() {}

  private record Drawn(long ms, int input, int output, long[] ids) {}

  /** Mooncake's format: timestamp, input_length, output_length, hash_ids (512-token blocks). */
  static String mooncake() {
    SplittableRandom random = new SplittableRandom(52);
    int block = 512;
    // three system prompts of 2, 4 and 8 blocks: ids 0-1, 2-5, 6-13
    long[][] systems = {ids(0, 2), ids(2, 4), ids(6, 8)};
    long[] next = {14};
    List<Drawn> lines = new ArrayList<>();
    long ms = 0;
    for (int n = 0; n < 300; n++) {
      // bursts of twelve 25 ms apart every 60 requests, else about 110 ms apart
      ms += n == 0 ? 0 : n % 60 < 12 ? 25 : Math.round(exponential(random) * 110);
      double kind = random.nextDouble();
      int input;
      long[] shared;
      if (kind < 0.25 && lines.size() > 5) {
        // a conversation that goes on: the earlier prompt's whole blocks, its output, more text
        Drawn before = lines.get(lines.size() - 1 - random.nextInt(Math.min(30, lines.size())));
        input = before.input() + before.output() + 50 + random.nextInt(1450);
        shared = Arrays.copyOf(before.ids(), before.input() / block);
      } else if (kind < 0.8) {
        long[] system = systems[random.nextInt(systems.length)];
        input = system.length * block + 100 + random.nextInt(2900);
        shared = system;
      } else {
        input = 200 + random.nextInt(5800);
        shared = new long[0];
      }
      int output = lognormal(random, 150, 0.7, 5, 800);
      lines.add(
          new Drawn(ms, input, output, withNewIds(shared, (input + block - 1) / block, next)));
    }
    StringBuilder out = new StringBuilder();
    for (Drawn d : lines) {
      out.append("{\"timestamp\": ")
          .append(d.ms())
          .append(", \"input_length\": ")
          .append(d.input())
          .append(", \"output_length\": ")
          .append(d.output())
          .append(", \"hash_ids\": ")
          .append(list(d.ids()))
          .append("}\n");
    }
    return out.toString();
  }

  /** The Azure LLM inference trace's CSV: TIMESTAMP (100 ns digits), ContextTokens, Generated. */
  static String azure() {
    SplittableRandom random = new SplittableRandom(2023);
    LocalDateTime at = LocalDateTime.of(2023, 11, 16, 18, 15, 46, 680_590_000);
    DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSS", Locale.ROOT);
    StringBuilder out = new StringBuilder("TIMESTAMP,ContextTokens,GeneratedTokens\n");
    for (int n = 0; n < 300; n++) {
      if (n > 0) {
        // in units of 100 ns, as the published trace's timestamps are
        at = at.plusNanos(100 * Math.round(exponential(random) * 1_000_000));
      }
      out.append(f.format(at))
          .append(',')
          .append(lognormal(random, 1000, 0.9, 10, 8000))
          .append(',')
          .append(lognormal(random, 120, 0.8, 3, 800))
          .append('\n');
    }
    return out.toString();
  }

  private record Turned(
      long ms,
      int input,
      int output,
      long[] ids,
      String model,
      String app,
      int session,
      int turn,
      int order) {}

  /**
   * tpot's format: sessions of one to five turns (each later turn's prompt is the one before, its
   * output and a new message), the leading whole blocks of 64 tokens hashed, two models, labels.
   */
  static String tpot() {
    SplittableRandom random = new SplittableRandom(64);
    int block = 64;
    long[] chat = ids(0, 8);
    long[] code = ids(8, 16);
    long[] next = {24};
    List<Turned> all = new ArrayList<>();
    long start = 0;
    int session = 0;
    while (all.size() < 200) {
      start += Math.round(exponential(random) * 450);
      boolean isCode = random.nextDouble() < 0.4;
      long[] system = isCode ? code : chat;
      String model = random.nextDouble() < 0.5 ? "model-a" : "model-b";
      int turns = Math.min(1 + random.nextInt(5), 200 - all.size());
      long ms = start;
      int input = system.length * block + 50 + random.nextInt(750);
      long[] ids = withNewIds(system, input / block, next);
      for (int t = 1; t <= turns; t++) {
        int output = lognormal(random, 100, 0.6, 5, 500);
        all.add(new Turned(ms, input, output, ids, model, isCode ? "code" : "chat", session, t, 0));
        // the next turn: after this one's output (about 20 ms a token) and a think of 1-3 s
        ms += output * 20L + 1000 + random.nextInt(2000);
        int nextInput = input + output + 20 + random.nextInt(380);
        ids = withNewIds(Arrays.copyOf(ids, input / block), nextInput / block, next);
        input = nextInput;
      }
      session++;
    }
    List<Turned> ordered = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      Turned t = all.get(i);
      ordered.add(
          new Turned(
              t.ms(),
              t.input(),
              t.output(),
              t.ids(),
              t.model(),
              t.app(),
              t.session(),
              t.turn(),
              i));
    }
    ordered.sort(Comparator.comparingLong(Turned::ms).thenComparingInt(Turned::order));
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (Turned t : ordered) {
      out.append("{\"timestamp\": ")
          .append(t.ms())
          .append(", \"input_length\": ")
          .append(t.input())
          .append(", \"output_length\": ")
          .append(t.output())
          .append(", \"hash_ids\": ")
          .append(list(t.ids()))
          .append(", \"block_size\": ")
          .append(block)
          .append(", \"model\": \"")
          .append(t.model())
          .append("\", \"labels\": {\"app\": \"")
          .append(t.app())
          .append("\"}, \"session_id\": \"s-")
          .append(t.session())
          .append("\", \"turn\": ")
          .append(t.turn())
          .append(", \"request_id\": \"r-")
          .append(String.format(Locale.ROOT, "%04d", n++))
          .append("\"}\n");
    }
    return out.toString();
  }

  /** {@code shared}, then new ids up to {@code count} of them. */
  private static long[] withNewIds(long[] shared, int count, long[] next) {
    long[] ids = Arrays.copyOf(shared, count);
    for (int i = shared.length; i < count; i++) {
      ids[i] = next[0]++;
    }
    return ids;
  }

  private static long[] ids(long from, int count) {
    long[] ids = new long[count];
    for (int i = 0; i < count; i++) {
      ids[i] = from + i;
    }
    return ids;
  }

  private static String list(long[] ids) {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < ids.length; i++) {
      s.append(i == 0 ? "" : ", ").append(ids[i]);
    }
    return s.append(']').toString();
  }

  private static double exponential(SplittableRandom random) {
    return -Math.log(1.0 - random.nextDouble());
  }

  private static int lognormal(
      SplittableRandom random, double median, double sigma, int lo, int hi) {
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    double z = Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return (int) Math.max(lo, Math.min(hi, Math.round(median * Math.exp(sigma * z))));
  }
}
