package io.tpotstream.producer.http;

/**
 * A failed request: its class, the HTTP status when there was one, and a one-line message that says
 * what to check (already redacted).
 */
public record RequestFailure(ErrorClass errorClass, Integer httpStatus, String message) {}
