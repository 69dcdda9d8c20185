package io.tpotstream.app.schema;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.topology.DeadLetterHeaders;
import io.tpotstream.common.Json;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every record a real pipeline publishes is valid by docs/schemas and uses no field the schemas do
 * not describe: a producer against the simulator (one model whose requests fail, by a 500 or a cut
 * stream), the aggregator with grouping and an SLO, and the sink writing {@code tpot.metrics}; two
 * records that are not token events go to the dead letters, whose headers match their schema. Set
 * up as {@code ReplayEqualityTest} runs its live pipeline, with topics of its own.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PublishedRecordsMatchSchemasTest {
  private static final int REQUESTS = 16;
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** A profile as users write one: model-a, with requests that fail. */
  private static final String FLAKY =
      "{\"models\": {\"flaky-a\": {\"extends\": \"model-a\","
          + " \"errors\": {\"http500\": 0.5, \"cut\": 0.5, \"cutAfterChunks\": 3}}}}";

  /** A record over the dead letter's 64 KiB value budget: JSON, but no token event. */
  private static final byte[] BIG =
      utf8("{\"type\":\"start\",\"v\":1,\"pad\":\"" + "x".repeat(70_000) + "\"}");

  @Test
  void everyPublishedRecordMatchesItsSchema(TestKafka kafka, @TempDir Path dir) throws Exception {
    String events = TestKafka.uniqueName("schema-events");
    String summaries = events + "-summaries";
    String deadLetters = events + "-dead";
    String metrics = events + "-metrics";
    kafka.createTopic(events, 3, Map.of("retention.ms", "-1"));

    RunResult run;
    try (Simulator simulator =
        Simulator.start(
            SimulatorConfig.defaults()
                .withPort(0)
                .withSeed(11L)
                .withWarmupChunks(0)
                .withProfiles(Profiles.parse(FLAKY)))) {
      Map<String, String> overrides =
          Map.of(
              "base_url", simulator.baseUrl(),
              "models", "model-a,flaky-a",
              "concurrency", "4",
              "total_requests", Integer.toString(REQUESTS),
              "max_tokens", "20",
              "api_key", "k",
              "warmup", "0");
      run =
          Producer.start(
                  ConfigLoader.load(null, overrides, Map.of(), w -> {}),
                  KafkaSettings.of(kafka.bootstrapServers()).withTopic(events))
              .result()
              .get();
    }
    long completed = run.models().stream().mapToLong(ModelResult::completed).sum();
    long failed = run.models().stream().mapToLong(ModelResult::failed).sum();
    assertEquals(2 * REQUESTS, completed + failed);
    assertTrue(failed >= 1, "flaky-a fails some requests");

    // two records that are not token events (no ts): one short, one cut to 64 KiB
    // in its dead letter
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      producer.send(new ProducerRecord<>(events, 0, "bad-1", utf8("{\"type\":\"token\",\"v\":1}")));
      ProducerRecord<String, byte[]> big = new ProducerRecord<>(events, 1, "bad-2", BIG);
      big.headers().add("origin", utf8("schema test"));
      producer.send(big);
    }

    List<ConsumerRecord<String, byte[]>> summaryRecords;
    StageSettings stage =
        StageSettings.defaults()
            .withWindow(Duration.ofSeconds(2))
            .withGroupBy(List.of("concurrency"))
            .withSlo(SloSpec.parse("tpot_p99=1h,error_rate=1%", "ttft=1h"));
    try (Aggregator aggregator =
            Aggregator.start(
                AggregatorConfig.defaults(kafka.bootstrapServers())
                    .withTopics(events, summaries, deadLetters)
                    .withApplicationId(TestKafka.uniqueName("schema-app"))
                    .withStage(stage));
        Sink sink =
            Sink.start(
                SinkConfig.builder(kafka.bootstrapServers())
                    .inputTopic(summaries)
                    .groupId(TestKafka.uniqueName("schema-sink"))
                    .csv(dir.resolve("summaries.csv"))
                    .metricsTopic(metrics)
                    .noPrometheus()
                    .build())) {
      // every request in a summary, then every summary through the sink
      long[] finished = {0};
      summaryRecords = new ArrayList<>();
      try (KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("schema-reader")))) {
        consumer.subscribe(List.of(summaries));
        await()
            .atMost(WAIT)
            .until(
                () -> {
                  for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    summaryRecords.add(r);
                    JsonNode requests = Json.MAPPER.readTree(r.value()).get("requests");
                    finished[0] += requests.get("completed").asLong();
                    finished[0] += requests.get("failed").asLong();
                  }
                  return finished[0] == 2 * REQUESTS;
                });
      }
      await().atMost(WAIT).until(() -> sink.summariesWritten() == summaryRecords.size());
    }

    PublishedSchemas eventSchema = PublishedSchemas.load(PublishedSchemas.TOKEN_EVENT);
    Map<String, Long> byType = new TreeMap<>();
    for (ConsumerRecord<String, byte[]> r : readAll(kafka, events)) {
      JsonNode event = Json.MAPPER.readTree(r.value());
      if (r.key().startsWith("bad-")) {
        assertFalse(eventSchema.problems(event).isEmpty(), "a dead letter breaks the schema too");
        continue;
      }
      assertEquals(List.of(), eventSchema.undocumented(event), event.toString());
      byType.merge(event.get("type").asText(), 1L, Long::sum);
    }
    assertEquals(2L * REQUESTS, count(byType, "start"), "types: " + byType);
    assertEquals(completed, count(byType, "end"), "types: " + byType);
    assertEquals(failed, count(byType, "error"), "types: " + byType);
    assertTrue(count(byType, "token") > REQUESTS * 19L, "types: " + byType);
    assertEquals(run.heartbeats(), count(byType, "heartbeat"), "types: " + byType);
    assertTrue(run.heartbeats() >= 6, "start and final heartbeats on 3 partitions");

    PublishedSchemas summarySchema = PublishedSchemas.load(PublishedSchemas.WINDOW_SUMMARY);
    Map<String, Long> errors = new TreeMap<>();
    for (ConsumerRecord<String, byte[]> r : summaryRecords) {
      JsonNode summary = Json.MAPPER.readTree(r.value());
      assertEquals(List.of(), summarySchema.undocumented(summary), summary.toString());
      assertTrue(summary.has("slo"), summary.toString());
      summary
          .at("/requests/errors")
          .properties()
          .forEach(e -> errors.merge(e.getKey(), e.getValue().asLong(), Long::sum));
    }
    assertTrue(summaryRecords.size() >= 2, "summaries: " + summaryRecords.size());
    assertEquals(failed, errors.values().stream().mapToLong(Long::longValue).sum());

    PublishedSchemas metricsSchema = PublishedSchemas.load(PublishedSchemas.METRICS_RECORD);
    List<ConsumerRecord<String, byte[]>> metricsRecords = readAll(kafka, metrics);
    assertEquals(summaryRecords.size(), metricsRecords.size());
    for (ConsumerRecord<String, byte[]> r : metricsRecords) {
      JsonNode record = Json.MAPPER.readTree(r.value());
      assertEquals(List.of(), metricsSchema.undocumented(record), record.toString());
      assertEquals("4", record.get("label_concurrency").asText(), record.toString());
    }

    PublishedSchemas headerSchema = PublishedSchemas.load(PublishedSchemas.DEAD_LETTER_HEADERS);
    List<ConsumerRecord<String, byte[]>> dead = readAll(kafka, deadLetters);
    assertEquals(
        List.of("bad-1", "bad-2"), dead.stream().map(ConsumerRecord::key).sorted().toList());
    for (ConsumerRecord<String, byte[]> r : dead) {
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header h : r.headers()) {
        headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      }
      assertEquals(List.of(), headerSchema.problems(PublishedSchemas.headers(headers)), r.key());
      // the original headers are kept; every header of tpot's own is described
      Map<String, String> ours = new LinkedHashMap<>(headers);
      ours.keySet().removeIf(name -> !name.startsWith("tpot."));
      assertEquals(List.of(), headerSchema.undocumented(PublishedSchemas.headers(ours)), r.key());
      assertEquals(events, headers.get(DeadLetterHeaders.SOURCE_TOPIC));
      if (r.key().equals("bad-2")) {
        assertEquals(Integer.toString(BIG.length), headers.get(DeadLetterHeaders.VALUE_SIZE));
        assertEquals("true", headers.get(DeadLetterHeaders.VALUE_TRUNCATED));
        assertEquals(64 * 1024, r.value().length);
        assertEquals("schema test", headers.get("origin"));
      }
    }
  }

  /** Every record of {@code topic}, read_committed, from its start to the end offsets of now. */
  private static List<ConsumerRecord<String, byte[]>> readAll(TestKafka kafka, String topic)
      throws IOException {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("schema-read")))) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      await()
          .atMost(WAIT)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
              });
    }
    return records;
  }

  private static long count(Map<String, Long> byType, String type) {
    return byType.getOrDefault(type, 0L);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
