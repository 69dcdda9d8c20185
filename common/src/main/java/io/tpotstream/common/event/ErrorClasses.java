package io.tpotstream.common.event;

import java.util.List;

/**
 * The error classes a producer writes in {@code errorClass} (docs/design.md, "Errors a user
 * meets"), and the one readers fold every other class into, so that readers can show each one from
 * zero before it first happens (a Prometheus counter that appears only with its first error hides
 * that error from {@code rate()}).
 */
public final class ErrorClasses {
  private ErrorClasses() {}

  /** Every class the producer knows, in the order docs/design.md lists them. */
  public static final List<String> KNOWN =
      List.of(
          "http_401",
          "http_403",
          "http_404",
          "http_429",
          "http_4xx",
          "http_5xx",
          "timeout_connect",
          "timeout_first_token",
          "timeout_idle",
          "timeout_total",
          "connection",
          "protocol",
          "truncated",
          "cancelled",
          "proxy_queue");

  /**
   * What readers make of an {@code errorClass} outside {@link #KNOWN} (a newer or a buggy writer):
   * one class for all of them, so that thousands of free-text classes cost one counter, not one
   * each. Such an event is still read, not a dead letter.
   */
  public static final String OTHER = "other";

  /** {@code errorClass} when it is one of {@link #KNOWN} (or null), else {@link #OTHER}. */
  public static String fold(String errorClass) {
    return errorClass == null || KNOWN.contains(errorClass) ? errorClass : OTHER;
  }
}
