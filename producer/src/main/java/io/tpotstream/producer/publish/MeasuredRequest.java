package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenTemplate;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.http.RequestFailure;
import java.util.List;
import java.util.SortedMap;
import java.util.function.IntFunction;

/**
 * One request as the publisher thread measures it. The event loop creates it and fills in what it
 * alone knows (start, schedule lag, why the request failed, what the response looked like) before
 * the hand-off that announces it; everything else (the dialect's reading of the stream, the chunks,
 * the arrival times kept for the producer's own table) belongs to the publisher thread.
 */
public final class MeasuredRequest {
  final String requestId;
  final String model;
  final boolean warmup;
  final Long intendedNs;
  final StreamReader reader;
  final Runnable abort;
  final SortedMap<String, String> labels;

  /**
   * Set when an event of this request could not be held (a dropping publisher, Kafka behind): its
   * later events are dropped too, so that no gap is measured across a missing chunk.
   */
  volatile boolean dropped;

  // written by the event loop before the hand-off that carries them
  long startNs;
  Integer askedTokens;
  Long scheduleLagNs;
  IntFunction<RequestFailure> failure;
  String contentType = "";
  String preview = "";
  long bytes;
  List<Long> prefixHashes;
  int prefixBlocks;

  // the publisher thread's own
  TokenTemplate template;
  byte[] key;
  long[] arrivalsNs = new long[64];
  int[] tokensPerChunk = new int[64];
  int chunks;
  int malformed;

  /** The cached prompt tokens its end event carries (the server's, checked), or null. */
  Integer cachedTokens;

  /** What the server said of the request (its end event's {@code engineTiming}), or null. */
  io.tpotstream.common.engine.EngineTiming engineTiming;

  int sseEvents;
  long lastEventNs;
  long lastTokenRead = -1;

  /** How long the event loop ran late since the last token chunk (ns, summed over events). */
  long lagSinceTokenNs;

  long endNs;
  RequestFailure failed;
  boolean finished;

  /**
   * @param intendedNs open loop: when the request was due (System.nanoTime()); null when closed
   * @param reader the dialect's reader for this response (used by the publisher thread only)
   * @param abort stops the HTTP exchange when the stream itself said it failed; the publisher
   *     thread calls it, it must hop to the request's event loop
   * @param labels the request's own labels (a proxy's: the route, the operator's named headers),
   *     instead of the recorder's; null: the recorder's
   */
  public MeasuredRequest(
      String requestId,
      String model,
      boolean warmup,
      Long intendedNs,
      StreamReader reader,
      Runnable abort,
      SortedMap<String, String> labels) {
    this.requestId = requestId;
    this.model = model;
    this.warmup = warmup;
    this.intendedNs = intendedNs;
    this.reader = reader;
    this.abort = abort;
    this.labels = labels;
  }

  /** The output length a trace asked for (null: none), so that a short response is counted. */
  public void askedTokens(Integer tokens) {
    askedTokens = tokens;
  }

  /** The request start (System.nanoTime()); sets the schedule lag in open loop. */
  public void started(long atNs) {
    startNs = atNs;
    scheduleLagNs = intendedNs == null ? null : atNs - intendedNs;
  }

  public long startNs() {
    return startNs;
  }

  public String requestId() {
    return requestId;
  }

  /** Why the request failed, given the token chunks the publisher thread counted by then. */
  public void failure(IntFunction<RequestFailure> why) {
    failure = why;
  }

  /** True when this request's events are being dropped (see {@link OutagePolicy#drop()}). */
  public boolean dropped() {
    return dropped;
  }

  /**
   * The keyed hashes of the prompt's leading blocks and its number of blocks (the proxy's {@code
   * --capture-prefix-hashes}), for the start event; set before the hand-off that starts it.
   */
  public void prefix(List<Long> hashes, int blocks) {
    this.prefixHashes = hashes;
    this.prefixBlocks = blocks;
  }

  /** What the response looked like, for a stream that ended without any event. */
  public void response(String contentType, String preview, long bytes) {
    this.contentType = contentType;
    this.preview = preview;
    this.bytes = bytes;
  }
}
