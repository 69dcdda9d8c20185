package io.tpotstream.simulator.plan;

/** What replaces a response, when a fault is injected before any byte is sent. */
public enum Fault {
  NONE,
  HTTP_429,
  HTTP_500
}
