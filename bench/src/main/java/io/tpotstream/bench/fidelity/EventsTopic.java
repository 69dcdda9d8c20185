package io.tpotstream.bench.fidelity;

import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** A finished producer run's token-events topic, read back: per request, when each chunk came. */
final class EventsTopic {
  /** One request as published: arrival (elapsedNs) per chunk seq, -1 where none. */
  static final class Request {
    long[] elapsedBySeq = new long[0];
    Long scheduleLagNs;
    long startTsMs = -1;

    void token(int seq, long elapsedNs) {
      if (seq >= elapsedBySeq.length) {
        int old = elapsedBySeq.length;
        elapsedBySeq = Arrays.copyOf(elapsedBySeq, Math.max(seq + 1, old * 2));
        Arrays.fill(elapsedBySeq, old, elapsedBySeq.length, -1);
      }
      elapsedBySeq[seq] = elapsedNs;
    }

    long elapsedNs(int seq) {
      return seq < elapsedBySeq.length ? elapsedBySeq[seq] : -1;
    }
  }

  final Map<String, Request> requests = new HashMap<>();
  long[] tokenTsMs = new long[1024];
  int tokens;
  long firstStartTsMs = Long.MAX_VALUE;
  long records;

  EventsTopic() {}

  /** Reads every record of {@code topic} (the producer has finished). */
  static EventsTopic read(String bootstrap, String topic) {
    EventsTopic result = new EventsTopic();
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(bootstrap)) {
      List<TopicPartition> parts = BenchTopics.assignFromStart(consumer, topic);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long expected = end.values().stream().mapToLong(Long::longValue).sum();
      long idle = 0;
      while (result.records < expected && idle < 50) {
        var batch = consumer.poll(Duration.ofMillis(100));
        idle = batch.isEmpty() ? idle + 1 : 0;
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          result.records++;
          result.add(TokenEventCodec.decode(r.value()));
        }
      }
    }
    return result;
  }

  void add(TokenEvent e) {
    if (e.type() == EventType.HEARTBEAT) {
      return;
    }
    Request r = requests.computeIfAbsent(e.requestId(), id -> new Request());
    if (e.type() == EventType.START) {
      r.scheduleLagNs = e.scheduleLagNs();
      r.startTsMs = e.ts();
      firstStartTsMs = Math.min(firstStartTsMs, e.ts());
    } else if (e.type() == EventType.TOKEN) {
      r.token(e.seq(), e.elapsedNs());
      if (tokens == tokenTsMs.length) {
        tokenTsMs = Arrays.copyOf(tokenTsMs, tokens * 2);
      }
      tokenTsMs[tokens++] = e.ts();
    }
  }

  /** Token events with {@code fromMs <= ts < toMs}. */
  long tokensBetween(long fromMs, long toMs) {
    long n = 0;
    for (int i = 0; i < tokens; i++) {
      if (tokenTsMs[i] >= fromMs && tokenTsMs[i] < toMs) {
        n++;
      }
    }
    return n;
  }
}
