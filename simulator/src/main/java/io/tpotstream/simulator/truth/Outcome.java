package io.tpotstream.simulator.truth;

import java.util.Locale;

/** How a request to the simulator ended. */
public enum Outcome {
  /** Still streaming (or waiting for its non-streaming answer). */
  IN_PROGRESS,
  COMPLETED,
  /** The simulator closed the connection mid-stream (an injected cut). */
  CUT,
  /** The client went away before the end. */
  CLIENT_CLOSED,
  HTTP_400,
  HTTP_401,
  HTTP_404,
  HTTP_429,
  HTTP_500;

  /** The lower-case name used in JSON ({@code completed}, {@code http_429}). */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
