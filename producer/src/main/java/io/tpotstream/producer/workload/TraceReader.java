package io.tpotstream.producer.workload;

import java.io.Closeable;

/**
 * Reads a trace file's requests in order, one format per implementation ({@link
 * JsonLinesTraceReader}: Mooncake's JSON lines and tpot's superset of them; {@link
 * AzureCsvTraceReader}: the Azure LLM inference trace CSV). Every value is checked against {@link
 * TraceBounds} where it is read, and the times must not go back. Not thread-safe.
 */
public interface TraceReader extends Closeable {
  /**
   * The next request, or null at the end of the file.
   *
   * @throws io.tpotstream.producer.config.ConfigException naming the file, the line and the field
   *     of a value that cannot be used, and what to check
   */
  TraceRequest next();

  /** Closes the file; never throws. */
  @Override
  void close();
}
