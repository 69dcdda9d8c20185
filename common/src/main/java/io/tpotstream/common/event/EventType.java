package io.tpotstream.common.event;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** The kinds of token event (docs/design.md, "Token event"). */
public enum EventType {
  START("start"),
  TOKEN("token"),
  END("end"),
  ERROR("error"),
  HEARTBEAT("heartbeat"),
  /** One scrape interval of an inference engine's own metrics (docs/design.md, "Engine event"). */
  ENGINE("engine");

  private final String wire;

  EventType(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static EventType fromWire(String wire) {
    for (EventType type : values()) {
      if (type.wire.equals(wire)) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "unknown event type '"
            + wire
            + "' (expected start, token, end, error, heartbeat or engine)");
  }
}
