package io.tpotstream.producer;

import io.tpotstream.producer.report.ModelResult;
import java.time.Duration;
import java.util.List;

/**
 * The outcome of a producer run: per model (config order) the producer's own measurements, and what
 * was published.
 *
 * @param stoppedEarly true when Ctrl-C, SIGTERM or {@link ProducerRun#stop()} ended the run
 * @param notSent due open-loop requests never sent because the run stopped
 * @param eventsPublished token events Kafka acknowledged (heartbeats not counted)
 * @param heartbeats heartbeat records sent (one per partition per heartbeat)
 * @param lateAtSource events whose ts was raised to a watermark already sent
 * @param clientPauseMaxUs the producer's longest own pause over the run, in µs
 */
public record RunResult(
    String runId,
    String producerId,
    String topic,
    List<ModelResult> models,
    Duration elapsed,
    boolean stoppedEarly,
    long notSent,
    long eventsPublished,
    long heartbeats,
    long lateAtSource,
    long clientPauseMaxUs) {}
