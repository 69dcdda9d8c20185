package io.tpotstream.simulator.truth;

import io.tpotstream.simulator.engine.EngineCounts;
import io.tpotstream.simulator.engine.EngineMetrics;
import io.tpotstream.simulator.engine.FinishReason;
import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.plan.ResponsePlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Records one request's chunks as they are sent, and, once the engine {@link #served serves} it,
 * the engine's view of them in {@link EngineMetrics}: each chunk's instant minus the gateway's
 * delay. Written by the request's event loop; read by anyone (under its lock).
 */
public final class RequestRecorder {
  private final String requestId;
  private final String model;
  private final long arrivalNs;
  private final ModelStats stats;
  private final GroundTruth truth;
  private final TruthFileWriter file;
  private final EngineMetrics engineMetrics;
  private EngineCounts engine;
  // what the engine serves, once it does (null before, and for the simulator's own warm-up)
  private ResponsePlan served;
  private long lastEngineNs;
  private long[] intendedNs = new long[16];
  private long[] dueNs = new long[16];
  private long[] sentNs = new long[16];
  private int[] tokens = new int[16];
  private int count;
  private int malformedLines;
  private int promptTokens;
  private Integer cachedTokens;
  private Outcome outcome = Outcome.IN_PROGRESS;
  private final CountDownLatch ended = new CountDownLatch(1);

  RequestRecorder(
      String requestId,
      String model,
      long arrivalNs,
      ModelStats stats,
      GroundTruth truth,
      TruthFileWriter file,
      EngineMetrics engineMetrics) {
    this.requestId = requestId;
    this.model = model;
    this.arrivalNs = arrivalNs;
    this.stats = stats;
    this.truth = truth;
    this.file = file;
    this.engineMetrics = engineMetrics;
  }

  public String requestId() {
    return requestId;
  }

  /**
   * Records the request's prompt: {@code promptTokens} tokens, {@code cachedTokens} of them held by
   * the prefix cache (null: no cache). Called once, before its first chunk.
   */
  public void prompt(int promptTokens, Integer cachedTokens) {
    synchronized (this) {
      this.promptTokens = promptTokens;
      this.cachedTokens = cachedTokens;
    }
    if (cachedTokens != null) {
      // counted in the statistics current when it arrives, as its chunks are when sent
      truth.stats(model).prompt(promptTokens, cachedTokens);
    }
  }

  /**
   * The engine serves the request (a plan without a fault, its {@link #prompt} recorded): from now
   * until it ends it runs in {@code /metrics}, its chunks are timed there {@code
   * plan.gatewayDelayNs()} before they reach the socket, and its completion counts as {@code
   * length} when the request's cap stopped it, else {@code stop}. Nothing is counted for the
   * simulator's own warm-up.
   */
  public void served(ResponsePlan plan) {
    if (engineMetrics == null) {
      return;
    }
    EngineCounts counts = engineMetrics.counts(model);
    int prompt;
    Integer cached;
    synchronized (this) {
      engine = counts;
      served = plan;
      prompt = promptTokens;
      cached = cachedTokens;
    }
    counts.accepted(prompt, cached);
  }

  /**
   * Records a non-streamed answer, whose body goes out now: the engine produced its chunks at the
   * instants of its {@code plan}, as {@code engineView} ({@link RequestMetrics#planned}) says, so
   * {@code /metrics} counts them as such (nothing of it is in the per-chunk truth, which records
   * streamed sends).
   */
  public void answeredWhole(ResponsePlan plan, RequestMetrics engineView) {
    EngineCounts counts;
    int prompt;
    synchronized (this) {
      counts = engine;
      prompt = promptTokens;
    }
    if (counts == null) {
      return;
    }
    counts.firstChunk(engineView.ttftNs(), prompt, plan.tokens(0));
    for (int seq = 1; seq < plan.chunks(); seq++) {
      counts.nextChunk(plan.waitNs(seq), plan.tokens(seq));
    }
    synchronized (this) {
      lastEngineNs = arrivalNs + engineView.ttftNs() + engineView.generationNs();
    }
  }

  /**
   * Records output chunk {@code seq}: {@code intendedNs} after its predecessor (or the arrival) by
   * its profile, due at {@code dueNs}, written at {@code sentNs} (both {@link System#nanoTime()}),
   * carrying {@code chunkTokens} tokens.
   */
  public void chunk(int seq, long intendedNs, long dueNs, long sentNs, int chunkTokens) {
    long gapNs;
    EngineCounts counts;
    int prefillTokens;
    long engineSentNs;
    synchronized (this) {
      counts = engine;
      prefillTokens = promptTokens;
      engineSentNs = sentNs - gatewayDelayNs();
      lastEngineNs = engineSentNs;
      if (count == this.sentNs.length) {
        int size = count * 2;
        this.intendedNs = Arrays.copyOf(this.intendedNs, size);
        this.dueNs = Arrays.copyOf(this.dueNs, size);
        this.sentNs = Arrays.copyOf(this.sentNs, size);
        this.tokens = Arrays.copyOf(this.tokens, size);
      }
      gapNs = count == 0 ? -1 : sentNs - this.sentNs[count - 1];
      this.intendedNs[count] = intendedNs;
      this.dueNs[count] = dueNs;
      this.sentNs[count] = sentNs;
      this.tokens[count] = chunkTokens;
      count++;
    }
    long pacingErrorNs = sentNs - dueNs;
    // a chunk counts in the statistics current when it is sent, even after a reset
    truth
        .stats(model)
        .chunk(
            gapNs,
            gapNs < 0 ? -1 : intendedNs,
            pacingErrorNs,
            seq == 0 ? sentNs - arrivalNs : -1,
            chunkTokens);
    if (counts != null) {
      if (gapNs < 0) {
        counts.firstChunk(engineSentNs - arrivalNs, prefillTokens, chunkTokens);
      } else {
        counts.nextChunk(gapNs, chunkTokens);
      }
    }
    if (file != null) {
      Integer prompt;
      Integer cached;
      synchronized (this) {
        prompt = seq == 0 && promptTokens > 0 ? promptTokens : null;
        cached = seq == 0 ? cachedTokens : null;
      }
      file.offer(
          new TruthFileWriter.Line(
              requestId,
              model,
              seq,
              sentNs,
              chunkTokens,
              intendedNs,
              pacingErrorNs,
              prompt,
              cached));
    }
  }

  /** Counts one injected invalid {@code data:} line. */
  public void malformedLine() {
    synchronized (this) {
      malformedLines++;
    }
    truth.stats(model).malformedLine();
  }

  /** Records how the request ended; only the first call counts. */
  public void end(Outcome how) {
    EngineCounts counts;
    ResponsePlan plan;
    long e2eNs;
    synchronized (this) {
      if (outcome != Outcome.IN_PROGRESS) {
        return;
      }
      outcome = how;
      counts = engine;
      plan = served;
      e2eNs = lastEngineNs - arrivalNs;
    }
    if (counts != null) {
      if (how == Outcome.COMPLETED) {
        FinishReason reason = plan.lengthCapped() ? FinishReason.LENGTH : FinishReason.STOP;
        counts.finished(reason, e2eNs, 0);
      } else {
        counts.aborted();
      }
    }
    stats.ended(how);
    ended.countDown();
  }

  /** Waits until the request has ended; false on timeout. */
  boolean awaitEnd(Duration timeout) throws InterruptedException {
    return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  synchronized RequestTruth snapshot() {
    List<ChunkTruth> chunks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      chunks.add(new ChunkTruth(i, intendedNs[i], dueNs[i], sentNs[i], tokens[i]));
    }
    return new RequestTruth(
        requestId,
        model,
        arrivalNs,
        outcome,
        List.copyOf(chunks),
        malformedLines,
        promptTokens,
        cachedTokens,
        gatewayDelayNs());
  }

  /** The gateway's delay of the plan served (under the lock): 0 before, and for the warm-up. */
  private long gatewayDelayNs() {
    return served == null ? 0 : served.gatewayDelayNs();
  }
}
