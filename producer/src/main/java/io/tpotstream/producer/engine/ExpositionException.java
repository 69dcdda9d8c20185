package io.tpotstream.producer.engine;

/**
 * A metrics body the {@link ExpositionParser} would not read to its end (larger than its bound), in
 * one line. Lines it cannot read are never this: they are counted and skipped.
 */
public final class ExpositionException extends RuntimeException {
  public ExpositionException(String message) {
    super(message, null, false, false);
  }
}
