package io.tpotstream.producer.publish;

import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.Producer;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** When Kafka cannot take the events the run fails loudly, never dropping them silently. */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PublishFailureTest {
  @Test
  void unreachableKafkaStopsTheRunBeforeAnyRequest() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (ScriptedServer server =
        new ScriptedServer().on("m", Script.sse().write(openAiStream(2)))) {
      KafkaSettings settings =
          KafkaSettings.of("127.0.0.1:" + port).withSetupTimeout(Duration.ofSeconds(2));
      PublishException e =
          assertThrows(
              PublishException.class,
              () ->
                  Producer.start(
                      Runs.config(Map.of("base_url", server.baseUrl(), "models", "m")), settings));
      assertTrue(
          e.getMessage().startsWith("no answer from Kafka at 127.0.0.1:" + port + " "),
          e.getMessage());
      assertTrue(e.getMessage().contains(" within 2 s while trying to describe topic "));
      assertTrue(e.getMessage().contains("check that the address is right, that the broker runs"));
      assertTrue(server.received().isEmpty(), "no request was sent");
    }
  }

  @Test
  void fullHandoffFailsTheRunWithTheEventsAtRisk(TestKafka kafka) {
    try (ScriptedServer server =
        new ScriptedServer().on("burst", Script.sse().write(openAiStream(2000)))) {
      KafkaSettings settings =
          KafkaSettings.of(kafka.bootstrapServers())
              .withTopic(TestKafka.uniqueName("tiny-queue"))
              .withQueueCapacity(1);
      CompletionException e =
          assertThrows(
              CompletionException.class,
              () ->
                  Producer.start(
                          Runs.config(
                              Map.of(
                                  "base_url",
                                  server.baseUrl(),
                                  "models",
                                  "burst",
                                  "total_requests",
                                  "3")),
                          settings)
                      .result()
                      .join());
      PublishException cause = assertInstanceOf(PublishException.class, e.getCause());
      assertTrue(
          cause
              .getMessage()
              .startsWith(
                  "the publisher thread fell behind: the hand-off from the event loops is full"
                      + " (1 entries waiting); "),
          cause.getMessage());
      assertTrue(
          cause.getMessage().contains(" events at risk; the run stopped."), cause.getMessage());
    }
  }
}
