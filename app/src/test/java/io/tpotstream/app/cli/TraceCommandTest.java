package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tpot trace} on a known set of events on the real broker: the exact lines from the topic,
 * the same from an export of it, the filters and {@code --out}, and a topic and a file at once
 * refused.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class TraceCommandTest {
  // in the past: brokers reject timestamps more than an hour ahead
  private static final long T0 = 1_700_000_000_000L;
  private static final Map<String, String> CHAT = Map.of("app", "chat", "route", "/v1/messages");
  private static final Map<String, String> BATCH = Map.of("app", "batch");

  @TempDir Path dir;

  private static final String ALL =
      String.join(
          "\n",
          "{\"timestamp\":0,\"input_length\":700,\"output_length\":3,\"hash_ids\":[0,1],"
              + "\"block_size\":512,\"model\":\"model-a\","
              + "\"labels\":{\"app\":\"chat\",\"route\":\"/v1/messages\"}}",
          "{\"timestamp\":500,\"input_length\":1100,\"output_length\":2,\"hash_ids\":[0,2,3],"
              + "\"block_size\":512,\"model\":\"model-a\","
              + "\"labels\":{\"app\":\"chat\",\"route\":\"/v1/messages\"}}",
          "{\"timestamp\":1500,\"output_length\":1,\"hash_ids\":[4],"
              + "\"block_size\":512,\"model\":\"model-b\",\"labels\":{\"app\":\"batch\"}}",
          "");

  /**
   * Three requests on three partitions: a (two blocks) ends after b, which shares a's first block
   * and has one more than its input's three blocks; c fails after one chunk; a warm-up request.
   */
  private static String publish(TestKafka kafka) {
    String topic = TestKafka.uniqueName("trace");
    kafka.createTopic(topic, 3, Map.of("retention.ms", "-1"));
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (int p = 0; p < 3; p++) {
        TokenEvent hb = TokenEvent.heartbeat(T0, "run", "p1", T0 - 200, false, 5L);
        producer.send(new ProducerRecord<>(topic, p, T0, "p1", TokenEventCodec.encode(hb)));
      }
      send(producer, topic, start(1_000, "a", "model-a", CHAT).withPrefix(List.of(-7L, 42L), 2));
      send(
          producer,
          topic,
          start(1_500, "b", "model-a", CHAT).withPrefix(List.of(-7L, 5L, 6L, 8L), 4));
      send(producer, topic, start(1_600, "w", "model-a", CHAT).asWarmup());
      for (int seq = 0; seq < 3; seq++) {
        send(producer, topic, token(1_100 + seq, "a", "model-a", CHAT, seq));
      }
      for (int seq = 0; seq < 2; seq++) {
        send(producer, topic, token(1_600 + seq, "b", "model-a", CHAT, seq));
      }
      send(
          producer,
          topic,
          TokenEvent.end(
              T0 + 1_700,
              "run",
              "b",
              "model-a",
              CHAT,
              200_000_000L,
              2,
              1_100,
              null,
              "stop",
              null,
              "p1"));
      send(producer, topic, start(2_500, "c", "model-b", BATCH).withPrefix(List.of(99L), 1));
      send(producer, topic, token(2_600, "c", "model-b", BATCH, 0));
      send(
          producer,
          topic,
          TokenEvent.error(
              T0 + 2_700,
              "run",
              "c",
              "model-b",
              BATCH,
              200_000_000L,
              1,
              "http_5xx",
              503,
              "HTTP 503",
              null,
              "p1"));
      send(
          producer,
          topic,
          TokenEvent.end(
              T0 + 3_000,
              "run",
              "a",
              "model-a",
              CHAT,
              2_000_000_000L,
              3,
              700,
              3,
              "stop",
              null,
              "p1"));
      for (int p = 0; p < 3; p++) {
        TokenEvent hb = TokenEvent.heartbeat(T0 + 5_000, "run", "p1", T0 + 4_800, true, 5L);
        producer.send(new ProducerRecord<>(topic, p, T0 + 5_000, "p1", TokenEventCodec.encode(hb)));
      }
      producer.flush();
    }
    return topic;
  }

  private static TokenEvent start(long ms, String id, String model, Map<String, String> labels) {
    return TokenEvent.start(T0 + ms, "run", id, model, labels, null, "p1").withSource("proxy");
  }

  private static TokenEvent token(
      long ms, String id, String model, Map<String, String> labels, int seq) {
    return TokenEvent.token(
        T0 + ms, "run", id, model, labels, ms * 1_000L, seq, 1, TokenKind.CONTENT, "p1");
  }

  private static void send(KafkaProducer<String, byte[]> producer, String topic, TokenEvent e) {
    producer.send(
        new ProducerRecord<>(topic, null, e.ts(), e.requestId(), TokenEventCodec.encode(e)));
  }

  @Test
  void theTopicAndItsExportGiveTheSameExactLines(TestKafka kafka) throws Exception {
    String topic = publish(kafka);
    List<String> fromTopic = List.of("trace", "--bootstrap-servers", kafka.bootstrapServers());
    TpotCli.Result all = tpot(fromTopic, "--topic", topic);
    assertEquals(0, all.exit(), all.err());
    assertEquals(ALL, all.out());
    assertTrue(
        all.err()
            .contains(
                "tpot trace: 3 requests to stdout (2 completed, 1 failed, 0 unfinished), the"
                    + " first started at 2023-11-14T22:13:21Z; hash_ids on 3 (5 distinct blocks"
                    + " of 512 tokens); 1 with more prompt blocks of 2,048 bytes than blocks of"
                    + " input tokens: hash_ids cut to input_length / 512"),
        all.err());
    assertTrue(
        all.err().contains("tpot trace: lines without input_length: 1 (no prompt tokens"),
        all.err());

    // an export of the topic, read as a file: the same lines
    Path export = dir.resolve("events.jsonl.zst");
    TpotCli.Result exported =
        tpot(
            "export",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--file",
            export.toString(),
            "-q");
    assertEquals(0, exported.exit(), exported.err());
    TpotCli.Result fromFile = tpot("trace", export.toString(), "-q");
    assertEquals(0, fromFile.exit(), fromFile.err());
    assertEquals(ALL, fromFile.out());

    // filters, --completed-only and --out: the file holds the lines, stdout nothing
    Path out = dir.resolve("chat.jsonl");
    TpotCli.Result chat =
        tpot(
            fromTopic,
            "--topic",
            topic,
            "--model",
            "model-a",
            "--label",
            "app=chat",
            "--completed-only",
            "--out",
            out.toString(),
            "-q");
    assertEquals(0, chat.exit(), chat.err());
    assertEquals("", chat.out());
    assertEquals(
        ALL.lines().limit(2).map(l -> l + "\n").reduce("", String::concat), Files.readString(out));
    TpotCli.Result batch =
        tpot("trace", export.toString(), "--label", "app=batch", "--completed-only");
    assertEquals("", batch.out());
    assertTrue(batch.err().contains("tpot trace: 0 requests to stdout"), batch.err());
    assertTrue(batch.err().contains("1 left out by --completed-only"), batch.err());

    // a time range: only what starts in it
    TpotCli.Result late =
        tpot("trace", export.toString(), "--from", Long.toString(T0 + 2_000), "-q");
    assertEquals(
        "{\"timestamp\":0,\"output_length\":1,\"hash_ids\":[0],"
            + "\"block_size\":512,\"model\":\"model-b\",\"labels\":{\"app\":\"batch\"}}\n",
        late.out());
  }

  @Test
  void anOutputWithoutItsDirectoryIsRefusedBeforeAnythingIsRead() {
    Path out = dir.resolve("missing").resolve("day.jsonl");
    TpotCli.Result refused = tpot("trace", "events.jsonl", "--out", out.toString());
    assertEquals(2, refused.exit());
    assertEquals(
        "tpot trace: --out "
            + out
            + ": no directory "
            + out.getParent()
            + " to write it in: create it, or check the path",
        refused.err().strip());
  }

  @Test
  void aTopicAndAFileAtOnceAreRefused() {
    TpotCli.Result both =
        tpot("trace", "events.jsonl", "--topic", "tpot.token-events", "--bootstrap-servers", "h:1");
    assertEquals(2, both.exit());
    assertTrue(
        both.err()
            .startsWith(
                "tpot trace reads a topic (--topic, --bootstrap-servers) or an archive (FILE),"
                    + " not both"),
        both.err());
  }
}
