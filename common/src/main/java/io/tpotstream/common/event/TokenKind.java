package io.tpotstream.common.event;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** What an output-token chunk carried. */
public enum TokenKind {
  CONTENT("content"),
  REASONING("reasoning"),
  TOOL("tool");

  private final String wire;

  TokenKind(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static TokenKind fromWire(String wire) {
    for (TokenKind kind : values()) {
      if (kind.wire.equals(wire)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown token kind '" + wire + "' (expected content, reasoning or tool)");
  }
}
