package io.tpotstream.proxy;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A proxy primed before it listens, and clients that send what they like: a model of 1.1 MB, a 10
 * KB path, a 5,000-character label header. The traffic is answered as the upstream answers, every
 * value that reaches an event is bounded (and counted when cut), and every well-formed request
 * after them is measured. Credential-carrying headers are refused as labels or ids.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class HostileClientsTest {
  /** The simulator, given from outside as {@code tpot proxy} gives it. */
  private static Primer.Server primingSimulator(String model) {
    Simulator simulator = Simulator.start(SimulatorConfig.inProcess(List.of(model), 0.2, 0.2));
    return new Primer.Server() {
      @Override
      public String baseUrl() {
        return simulator.baseUrl();
      }

      @Override
      public void close() {
        simulator.close();
      }
    };
  }

  private static String chat(String model) {
    return "{\"model\":\"" + model + "\",\"stream\":true,\"messages\":[]}";
  }

  @Test
  void hostileRequestsAreAnsweredBoundedAndCountedAndTheNextOnesMeasured(TestKafka kafka) {
    String topic = TestKafka.uniqueName("proxy-hostile");
    Script stream =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: " + content("a") + "\n\n")
            .pause(5)
            .write("data: " + content("b") + "\n\n")
            .write("data: " + FINISH + "\n\ndata: [DONE]\n\n");
    try (ScriptedServer upstream = new ScriptedServer().on("m", stream)) {
      TpotProxy proxy =
          TpotProxy.start(
              ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                  .withMetricsPort(0)
                  .withEventLoops(1)
                  .withLabelHeaders(Map.of("X-App", "app"))
                  // long enough for the first primed streams on a loaded machine (a cold path)
                  .withPrime(Duration.ofSeconds(5)),
              KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1),
              HostileClientsTest::primingSimulator);
      String metrics;
      try {
        assertTrue(proxy.startup().contains("primed first"), proxy.startup());
        assertTrue(
            !proxy.startup().contains("(0 chunks)"), "streams went through: " + proxy.startup());
        assertEquals(List.of(), upstream.received(), "priming never reaches the upstream");
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());

        String hugeModel = "x".repeat(1_100_000);
        RawHttp.Response huge =
            RawHttp.exchange(proxy.port(), RawHttp.post("/v1/chat/completions", chat(hugeModel)));
        assertEquals(404, huge.status(), "answered as the upstream answers");
        String longPath = "/" + "id-".repeat(3_400) + "/v1/chat/completions";
        assertEquals(
            414,
            RawHttp.exchange(proxy.port(), RawHttp.post(longPath, chat("m"))).status(),
            "the upstream's answer to a 10 KB request line, passed on");
        assertEquals(
            200,
            RawHttp.exchange(
                    proxy.port(),
                    RawHttp.post("/v1/chat/completions", chat("m"), "X-App: " + "a".repeat(5_000)))
                .status());
        for (int i = 0; i < 5; i++) {
          assertEquals(
              200,
              RawHttp.exchange(proxy.port(), RawHttp.post("/v1/chat/completions", chat("m")))
                  .status());
        }
        metrics = RawHttp.exchange(proxy.metricsPort(), RawHttp.get("/metrics")).text();
      } finally {
        proxy.close();
      }

      List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, proxy.producerId());
      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(records);
      List<List<TokenEvent>> measured =
          requests.values().stream().filter(e -> !Boolean.TRUE.equals(e.get(0).warmup())).toList();
      List<List<TokenEvent>> priming =
          requests.values().stream().filter(e -> Boolean.TRUE.equals(e.get(0).warmup())).toList();
      assertEquals(List.of(), priming, "the priming's events are never published");
      assertEquals(
          8,
          measured.size(),
          () ->
              "every request measured, the hostile ones too: "
                  + requests.values().stream()
                      .filter(e -> !ProxyPrimer.MODEL.equals(e.get(0).model()))
                      .map(e -> e.get(0).toString().substring(0, 300))
                      .toList());
      int ended = 0;
      for (List<TokenEvent> events : measured) {
        TokenEvent start = events.get(0);
        TokenEvent last = events.get(events.size() - 1);
        assertEquals("/v1/chat/completions", start.labels().get("route"), "a template, no path");
        assertTrue(start.model().length() <= 256, "the model is bounded");
        String app = start.labels().get("app");
        assertTrue(app == null || app.length() == 64, "a label value is bounded");
        if (last.type() == EventType.END) {
          ended++;
          assertEquals(2, events.stream().filter(e -> e.type() == EventType.TOKEN).count());
        } else if (last.httpStatus() == 404) {
          assertEquals("x".repeat(256), start.model());
        } else {
          assertEquals(414, last.httpStatus());
        }
      }
      assertEquals(6, ended, "the long label and the five after it");
      assertTrue(metrics.contains("tpot_proxy_values_cut_total 2.0"), metrics);
      assertTrue(metrics.contains("tpot_proxy_events_dropped_total 0.0"), metrics);
    }
  }

  @Test
  void credentialHeadersAreRefusedAsLabelsAndIds() {
    Upstream upstream = Upstream.parse("http://127.0.0.1:9");
    for (String header : List.of("Authorization", "x-api-key", "Api-Key", "Cookie")) {
      IllegalArgumentException label =
          assertThrows(
              IllegalArgumentException.class,
              () -> ProxyConfig.of(0, upstream).withLabelHeaders(Map.of(header, "who")));
      assertTrue(label.getMessage().contains("carries credentials"), label.getMessage());
      IllegalArgumentException id =
          assertThrows(
              IllegalArgumentException.class,
              () -> ProxyConfig.of(0, upstream).withRequestIdHeader(header));
      assertTrue(id.getMessage().startsWith("--request-id-header "), id.getMessage());
    }
  }
}
