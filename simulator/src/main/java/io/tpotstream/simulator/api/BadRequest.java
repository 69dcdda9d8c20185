package io.tpotstream.simulator.api;

/** A request the simulator refuses with 400, with a message for the client. */
final class BadRequest extends Exception {
  private final String param;

  BadRequest(String message, String param) {
    super(message, null, false, false);
    this.param = param;
  }

  /** The offending request field, or null. */
  String param() {
    return param;
  }
}
