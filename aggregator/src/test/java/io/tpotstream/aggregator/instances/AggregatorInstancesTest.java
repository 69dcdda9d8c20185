package io.tpotstream.aggregator.instances;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale past one machine, and crashes: two aggregator JVMs with the same application id share the
 * work of one; one of them is killed with SIGKILL twice while events keep arriving, and restarted
 * with an empty state directory (another machine). The summaries written are those of one
 * aggregator, byte for byte, each exactly once.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class AggregatorInstancesTest {
  static final long T0 = 1_700_000_000_000L;
  static final long WINDOW_MS = 2_000;
  static final Duration WAIT = Duration.ofSeconds(120);

  /**
   * The producer timeout is an hour: the test's pauses (a kill, a rebalance) move an idle
   * partition's clock by their wall time, and on a slow machine a pause past the default minute
   * would time the producer out and make the next phase's events late.
   */
  static final StageSettings SETTINGS =
      StageSettings.defaults()
          .withWindow(Duration.ofMillis(WINDOW_MS))
          .withGroupBy(List.of("concurrency"))
          .withProducerTimeout(Duration.ofHours(1));

  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();
  private TestKafka kafka;
  private String input;
  private String output;
  private String applicationId;
  private int started;

  @AfterEach
  void stopChildren() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void twoInstancesOneKilledTwiceWriteTheSummariesOfOne(TestKafka kafka) throws Exception {
    this.kafka = kafka;
    input = TestKafka.uniqueName("instances-in");
    output = TestKafka.uniqueName("instances-out");
    applicationId = TestKafka.uniqueName("instances");
    kafka.createTopic(input, 4, Map.of("retention.ms", "-1"));
    List<TokenEvent> events = SyntheticLoad.events(11, T0, 600, 60);
    List<String> expected =
        OfflineStats.compute(
                events,
                SETTINGS,
                p -> {
                  throw new AssertionError(p);
                })
            .stream()
            .map(WindowSummaryCodec::encodeToString)
            .toList();
    int third = events.size() / 3;
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> reader =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("reader")))) {
      Process a = start();
      Process b = start();
      awaitLine(a, "running");
      awaitLine(b, "running");
      awaitEachOfTwoInstancesReadingTheInput();
      SyntheticLoad.publish(kafka.producerProps(), input, 4, events.subList(0, third), -1);
      readUntil(reader, seen, 1);

      kill(a);
      SyntheticLoad.publish(kafka.producerProps(), input, 4, events.subList(third, 2 * third), -1);
      Process a2 = start();
      readUntil(reader, seen, seen.size() + 1);
      awaitLine(a2, "running");
      awaitEachOfTwoInstancesReadingTheInput(); // the restarted one too, before it is killed

      kill(a2);
      SyntheticLoad.publish(
          kafka.producerProps(), input, 4, events.subList(2 * third, events.size()), -1);
      start();
      readUntil(reader, seen, expected.size());
      assertTrue(b.isAlive(), "the instance never killed kept running");
    }
    assertEquals(expected.size(), new HashSet<>(seen).size(), "no summary twice");
    assertEquals(expected, seen);
    assertTrue(expected.size() > 40, expected.size() + " summaries");
  }

  private Process start() throws IOException {
    started++;
    ProcessBuilder builder =
        JavaLauncher.builder(
            List.of(),
            AggregatorChild.class,
            List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
            List.of(
                kafka.bootstrapServers(),
                input,
                output,
                applicationId,
                dir.resolve("state-" + started).toString(),
                Long.toString(WINDOW_MS),
                "concurrency"));
    builder.redirectError(dir.resolve("aggregator-" + started + ".log").toFile());
    Process p = builder.start();
    processes.add(p);
    return p;
  }

  private static void kill(Process p) throws InterruptedException {
    p.destroyForcibly(); // SIGKILL
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, p.exitValue());
  }

  private static void awaitLine(Process p, String line) throws Exception {
    CompletableFuture<Boolean> said =
        CompletableFuture.supplyAsync(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String text;
                while ((text = out.readLine()) != null) {
                  if (text.equals(line)) {
                    return true;
                  }
                }
                return false;
              } catch (IOException e) {
                return false;
              }
            });
    assertTrue(said.get(WAIT.toSeconds(), TimeUnit.SECONDS), "the aggregator said " + line);
  }

  /**
   * Until the group's members (one per stream thread) come from two JVMs, each assigned at least
   * one input partition. A thread's client id is {@code <application id>-<process id>-StreamThread-
   * <n>-consumer}.
   */
  private void awaitEachOfTwoInstancesReadingTheInput() {
    try (Admin admin = kafka.admin()) {
      await()
          .atMost(WAIT)
          .until(
              () -> {
                ConsumerGroupDescription group =
                    admin
                        .describeConsumerGroups(List.of(applicationId))
                        .all()
                        .get()
                        .get(applicationId);
                Map<String, Boolean> readsInput = new HashMap<>();
                for (MemberDescription m : group.members()) {
                  String process = m.clientId().replaceFirst("-StreamThread-.*", "");
                  boolean reads =
                      m.assignment().topicPartitions().stream()
                          .anyMatch(tp -> tp.topic().equals(input));
                  readsInput.merge(process, reads, Boolean::logicalOr);
                }
                return readsInput.size() == 2 && !readsInput.containsValue(false);
              });
    }
  }

  private void readUntil(KafkaConsumer<String, byte[]> reader, List<String> seen, int count) {
    if (reader.subscription().isEmpty()) {
      reader.subscribe(List.of(output));
    }
    await()
        .atMost(WAIT)
        .until(
            () -> {
              for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
                seen.add(new String(r.value(), StandardCharsets.UTF_8));
              }
              return seen.size() >= count;
            });
  }
}
