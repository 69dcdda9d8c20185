package io.tpotstream.producer.config;

import java.time.Duration;

/**
 * Per-request limits. {@code connect}: to get a connection (pool wait, TCP, TLS, proxy); {@code
 * firstToken}: from the request start to the first output token; {@code idle}: between two SSE
 * events once the first token arrived; {@code total}: the whole request.
 */
public record Timeouts(Duration connect, Duration firstToken, Duration idle, Duration total) {}
