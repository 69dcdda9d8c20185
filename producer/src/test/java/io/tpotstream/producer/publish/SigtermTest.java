package io.tpotstream.producer.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer stopped with SIGTERM cancels its in-flight requests, flushes, and leaves a final
 * heartbeat on every partition after its last events.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SigtermTest {
  @TempDir Path dir;

  @Test
  void sigtermEndsWithCancelledRequestsAndFinalHeartbeatsEverywhere(TestKafka kafka)
      throws Exception {
    String topic = TestKafka.uniqueName("sigterm");
    kafka.createTopic(topic, 3);
    Script endless = Script.sse().write("data: " + ScriptedServer.ROLE + "\n\n");
    for (int i = 0; i < 400; i++) {
      endless.write("data: " + ScriptedServer.content("x") + "\n\n").pause(50);
    }
    try (ScriptedServer server = new ScriptedServer().on("sig", endless)) {
      File log = dir.resolve("child.log").toFile();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process child =
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ChildProducer.class.getName(),
                  kafka.bootstrapServers(),
                  topic,
                  server.baseUrl())
              .redirectErrorStream(true)
              .redirectOutput(log)
              .start();
      try {
        AtomicLong tokens = new AtomicLong();
        try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("watch")))) {
          consumer.subscribe(List.of(topic));
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                      if (TokenEventCodec.decode(r.value()).type() == EventType.TOKEN) {
                        tokens.incrementAndGet();
                      }
                    }
                    return tokens.get() >= 10 || !child.isAlive();
                  });
        }
        assertTrue(child.isAlive(), () -> "the child died early: " + read(log));
        child.destroy(); // SIGTERM
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child stops after SIGTERM");
      } finally {
        child.destroyForcibly();
      }

      List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, 3);
      String producerId =
          records.stream()
              .filter(r -> r.event().type() == EventType.HEARTBEAT)
              .findFirst()
              .orElseThrow()
              .event()
              .producerId();
      HeartbeatTest.assertHeartbeatContract(records, 3, producerId);
      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(records);
      assertEquals(2, requests.size(), "two workers, each in the middle of one endless stream");
      List<String> endings = new ArrayList<>();
      for (List<TokenEvent> events : requests.values()) {
        assertEquals(EventType.START, events.get(0).type());
        TokenEvent last = events.get(events.size() - 1);
        endings.add(last.errorClass());
        assertEquals(events.size() - 2, last.seq());
      }
      assertEquals(List.of("cancelled", "cancelled"), endings);
    }
  }

  private static String read(File f) {
    try {
      return Files.readString(f.toPath());
    } catch (Exception e) {
      return "(no log)";
    }
  }
}
