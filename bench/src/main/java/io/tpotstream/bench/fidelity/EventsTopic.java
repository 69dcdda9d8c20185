package io.tpotstream.bench.fidelity;

import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A finished producer run's token-events topic, read back: per request, when each chunk came; and
 * the producer's heartbeats, which say how late its own event loops ran each second.
 */
final class EventsTopic {
  /** One request as published: arrival (elapsedNs) and ts per chunk seq, -1 where none. */
  static final class Request {
    long[] elapsedBySeq = new long[0];
    long[] tsBySeq = new long[0];
    long[] lagUsBySeq = new long[0];
    Long scheduleLagNs;
    long startTsMs = -1;

    void token(int seq, long elapsedNs, long ts, long lagUs) {
      if (seq >= elapsedBySeq.length) {
        int old = elapsedBySeq.length;
        int size = Math.max(seq + 1, old * 2);
        elapsedBySeq = Arrays.copyOf(elapsedBySeq, size);
        tsBySeq = Arrays.copyOf(tsBySeq, size);
        lagUsBySeq = Arrays.copyOf(lagUsBySeq, size);
        Arrays.fill(elapsedBySeq, old, size, -1);
        Arrays.fill(tsBySeq, old, size, -1);
      }
      elapsedBySeq[seq] = elapsedNs;
      tsBySeq[seq] = ts;
      lagUsBySeq[seq] = lagUs;
    }

    /** The client's own lag within chunk {@code seq}'s gap, µs (0: untouched). */
    long lagUs(int seq) {
      return seq < lagUsBySeq.length ? lagUsBySeq[seq] : 0;
    }

    long elapsedNs(int seq) {
      return seq < elapsedBySeq.length ? elapsedBySeq[seq] : -1;
    }

    long ts(int seq) {
      return seq < tsBySeq.length ? tsBySeq[seq] : -1;
    }
  }

  /** One heartbeat (partition 0's copy): the client's worst loop lag and pause before it. */
  record Heartbeat(long ts, long loopLagMaxUs, long clientPauseMaxUs) {
    long worstUs() {
      return Math.max(loopLagMaxUs, clientPauseMaxUs);
    }
  }

  final Map<String, Request> requests = new HashMap<>();
  final List<Heartbeat> heartbeats = new ArrayList<>();
  long[] tokenTsMs = new long[1024];
  int tokens;
  long firstStartTsMs = Long.MAX_VALUE;
  long records;
  long warmupEvents;

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
          result.add(TokenEventCodec.decode(r.value()), r.partition());
        }
      }
    }
    result.heartbeats.sort((a, b) -> Long.compare(a.ts(), b.ts()));
    return result;
  }

  void add(TokenEvent e) {
    add(e, 0);
  }

  void add(TokenEvent e, int partition) {
    if (e.type() == EventType.HEARTBEAT) {
      if (partition == 0 && e.loopLagMaxUs() != null) {
        heartbeats.add(
            new Heartbeat(
                e.ts(), e.loopLagMaxUs(), e.clientPauseMaxUs() == null ? 0 : e.clientPauseMaxUs()));
      }
      return;
    }
    if (e.inWarmup()) {
      // warm-up requests are left out, as every statistic leaves them out
      warmupEvents++;
      return;
    }
    Request r = requests.computeIfAbsent(e.requestId(), id -> new Request());
    if (e.type() == EventType.START) {
      r.scheduleLagNs = e.scheduleLagNs();
      r.startTsMs = e.ts();
      firstStartTsMs = Math.min(firstStartTsMs, e.ts());
    } else if (e.type() == EventType.TOKEN) {
      r.token(e.seq(), e.elapsedNs(), e.ts(), e.clientLagOrZero());
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

  /** Heartbeat intervals whose client lag or pause passed {@code thresholdUs}. */
  long suspectIntervals(long thresholdUs) {
    return heartbeats.stream().filter(h -> h.worstUs() > thresholdUs).count();
  }
}
