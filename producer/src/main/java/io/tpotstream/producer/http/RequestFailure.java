package io.tpotstream.producer.http;

/**
 * A failed request: its class, the HTTP status when there was one, a one-line message that says
 * what to check (already redacted), and whether no retry can fix it (a refused key, an unknown
 * model or path, a certificate not trusted or not matching the host).
 */
public record RequestFailure(
    ErrorClass errorClass, Integer httpStatus, String message, boolean permanent) {

  /** A failure that is permanent when its class is 401, 403 or 404. */
  public RequestFailure(ErrorClass errorClass, Integer httpStatus, String message) {
    this(
        errorClass,
        httpStatus,
        message,
        errorClass == ErrorClass.HTTP_401
            || errorClass == ErrorClass.HTTP_403
            || errorClass == ErrorClass.HTTP_404);
  }
}
