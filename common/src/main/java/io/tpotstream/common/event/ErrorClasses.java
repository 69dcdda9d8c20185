package io.tpotstream.common.event;

import java.util.List;

/**
 * The error classes a producer writes in {@code errorClass} (DESIGN.md, "Errors a user meets"), so
 * that readers can show each one from zero before it first happens (a Prometheus counter that
 * appears only with its first error hides that error from {@code rate()}).
 */
public final class ErrorClasses {
  private ErrorClasses() {}

  /** Every class the producer knows, in the order DESIGN.md lists them. */
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
          "cancelled");
}
