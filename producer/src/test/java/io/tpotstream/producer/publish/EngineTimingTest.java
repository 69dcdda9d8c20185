package io.tpotstream.producer.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.CallOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * vLLM's per-request metrics in a stream's last chunk reach the request's outcome (and its end
 * event) as µs, each value held to 0..1 h: one outside, or not a number, is left out.
 */
class EngineTimingTest {
  private static EngineTiming timingOf(String metrics) {
    List<CallOutcome> outcomes = new ArrayList<>();
    Handoff handoff = new Handoff(16);
    Recorder recorder =
        new Recorder(
            "run",
            "producer",
            Recorder.SOURCE,
            new TreeMap<>(),
            AnchoredClock.start(),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1),
            "http://127.0.0.1/v1/chat/completions",
            text -> text,
            outcomes::add);
    MeasuredRequest request =
        new MeasuredRequest(
            "r1",
            "m",
            false,
            null,
            Dialect.of(ApiKind.OPENAI).newReader(),
            () -> {},
            new TreeMap<>());
    request.started(System.nanoTime());
    handoff.start(request);
    String[] chunks = {
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}",
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}",
      "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2},\"metrics\":"
          + metrics
          + "}",
      "[DONE]"
    };
    for (int i = 0; i < chunks.length; i++) {
      byte[] event = ("data: " + chunks[i] + "\n").getBytes(StandardCharsets.UTF_8);
      handoff.event(request, event, 0, event.length, System.nanoTime(), i + 1, 0);
    }
    handoff.drain(100, recorder, new OutageBuffer(100, OutagePolicy.drop()));
    assertEquals(1, outcomes.size());
    return outcomes.get(0).engineTiming();
  }

  @Test
  void theServersMillisecondsBecomeMicroseconds() {
    assertEquals(
        new EngineTiming(12_300L, 85_200L, 9_100L, 1_240_500L),
        timingOf(
            "{\"time_to_first_token_ms\":85.2,\"generation_time_ms\":1240.5,"
                + "\"queue_time_ms\":12.3,\"mean_itl_ms\":9.1,\"tokens_per_second\":103.2}"));
    assertEquals(
        new EngineTiming(0L, null, 3_600_000_000L, null),
        timingOf("{\"queue_time_ms\":0,\"mean_itl_ms\":3600000}"));
  }

  @Test
  void valuesOutsideAnHourOrNotNumbersAreLeftOut() {
    assertEquals(
        new EngineTiming(null, null, null, 5_000L),
        timingOf(
            "{\"time_to_first_token_ms\":-1,\"queue_time_ms\":3600000.5,"
                + "\"mean_itl_ms\":\"9\",\"generation_time_ms\":5}"));
    assertEquals(null, timingOf("{\"time_to_first_token_ms\":1e400,\"mean_itl_ms\":true}"));
    assertEquals(null, timingOf("{}"));
  }
}
