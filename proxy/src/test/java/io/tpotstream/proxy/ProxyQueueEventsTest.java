package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A streaming request that waits in the proxy's own queue (its loop's only upstream connection
 * held) past the connect timeout is measured as the proxy's failure, {@code proxy_queue}, never as
 * the upstream's: its events are a start and an error of that class, with no HTTP status.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ProxyQueueEventsTest {
  @Test
  void aRequestTimedOutInTheProxysQueueIsAProxyQueueError(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("proxy-queue");
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (RawUpstream upstream =
        new RawUpstream(
            c -> {
              arrived.countDown();
              assertTrue(release.await(30, TimeUnit.SECONDS));
              c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
              return true;
            })) {
      TpotProxy proxy =
          TpotProxy.start(
              ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                  .withMetricsPort(-1)
                  .withEventLoops(1)
                  .withMaxConnectionsPerLoop(1)
                  .withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)),
              KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1));
      RawHttp.Response queued;
      try (RawHttp holder = new RawHttp(proxy.port())) {
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
        holder.write(RawHttp.get("/v1/models"));
        assertTrue(arrived.await(30, TimeUnit.SECONDS));
        queued =
            RawHttp.exchange(
                proxy.port(),
                RawHttp.post(
                    "/v1/chat/completions",
                    "{\"model\":\"m\",\"stream\":true,\"messages\":[]}",
                    "X-Request-Id: queued-1"));
        release.countDown();
        assertEquals("ok", holder.read(false).text());
      } finally {
        release.countDown();
        proxy.close();
      }
      assertEquals(503, queued.status());

      List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, proxy.producerId());
      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(records);
      assertEquals(1, requests.size(), requests.keySet().toString());
      List<TokenEvent> events = requests.values().iterator().next();
      assertEquals(
          List.of(EventType.START, EventType.ERROR),
          events.stream().map(TokenEvent::type).toList());
      TokenEvent error = events.get(1);
      assertEquals("proxy_queue", error.errorClass());
      assertNull(error.httpStatus());
      assertTrue(error.message().contains("waited in the proxy's queue"), error.message());
    }
  }
}
