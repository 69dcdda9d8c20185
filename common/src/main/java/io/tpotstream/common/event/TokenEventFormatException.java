package io.tpotstream.common.event;

/** A record that is not a valid token event; the message says what is wrong with it. */
public final class TokenEventFormatException extends RuntimeException {
  public TokenEventFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
