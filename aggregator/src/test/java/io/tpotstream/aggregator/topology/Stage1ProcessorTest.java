package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.common.Topics;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * Stage 1's processor over real in-memory Kafka Streams stores, without the test driver's
 * per-record commit (which makes a million requests take minutes there).
 */
class Stage1ProcessorTest {
  static final long T0 = 1_700_000_000_000L;

  @Test
  void oneMillionShortRequestsLeaveNoPerRequestState() {
    MockProcessorContext<byte[], StageMessage> context = new MockProcessorContext<>();
    List<KeyValueStore<Bytes, byte[]>> stores = new ArrayList<>();
    List<WindowSummary> partials = new ArrayList<>();
    for (String name :
        List.of(
            AggregatorTopology.REQUEST_STORE,
            AggregatorTopology.PARTIAL_STORE,
            AggregatorTopology.PARTITION_STORE)) {
      KeyValueStore<Bytes, byte[]> store =
          Stores.keyValueStoreBuilder(
                  Stores.inMemoryKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray())
              .withLoggingDisabled()
              .build();
      store.init(context.getStateStoreContext(), store);
      context.addStateStore(store);
      stores.add(store);
    }
    Stage1Processor processor = new Stage1Processor(StageSettings.defaults(), Topics.DEAD_LETTER);
    processor.init(context);
    long offset = 0;
    List<TokenEvent> events = new ArrayList<>();
    events.add(Req.heartbeat(T0, "p1", T0));
    int requests = 1_000_000;
    long maxStates = 0;
    for (int i = 0; i < requests; i++) {
      long ts = T0 + i / 50; // 50 requests per ms: 20 s of requests, two windows
      Req r = new Req("r" + i, "model-a");
      events.add(r.start(ts));
      events.add(r.token(ts, 1_000));
      events.add(r.end(ts, 2_000));
      if (i % 100_000 == 99_999) {
        events.add(Req.heartbeat(ts, "p1", ts - 200));
      }
      if (events.size() >= 3_000) {
        offset = process(processor, context, events, offset, partials);
        maxStates = Math.max(maxStates, stores.get(0).approximateNumEntries());
        events.clear();
      }
    }
    events.add(Req.finalHeartbeat(T0 + 20_001, "p1", T0 + 20_001));
    process(processor, context, events, offset, partials);

    assertEquals(0, stores.get(0).approximateNumEntries(), "per-request state left behind");
    assertEquals(0, stores.get(1).approximateNumEntries(), "partials left behind");
    assertEquals(0, maxStates, "a short request's state lives only while it streams");
    assertEquals(requests, partials.stream().mapToLong(s -> s.requests().started()).sum());
    assertEquals(requests, partials.stream().mapToLong(s -> s.requests().tooShort()).sum());
  }

  private static long process(
      Stage1Processor processor,
      MockProcessorContext<byte[], StageMessage> context,
      List<TokenEvent> events,
      long offset,
      List<WindowSummary> partials) {
    for (TokenEvent e : events) {
      context.setRecordMetadata(Topics.TOKEN_EVENTS, 0, offset++);
      String key = e.requestId() != null ? e.requestId() : e.producerId();
      processor.process(
          new Record<>(key.getBytes(StandardCharsets.UTF_8), TokenEventCodec.encode(e), e.ts()));
    }
    for (var forward : context.forwarded()) {
      StageMessage m = forward.record().value();
      if (m.kind() == StageMessage.Kind.PARTIAL) {
        partials.add(WindowSummaryCodec.decode(m.payload()));
      }
    }
    context.resetForwards();
    return offset;
  }
}
