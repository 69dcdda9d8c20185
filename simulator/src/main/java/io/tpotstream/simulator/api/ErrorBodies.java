package io.tpotstream.simulator.api;

/**
 * Error bodies in each dialect's shape, so that clients parse them as they would the real API's.
 */
final class ErrorBodies {
  private ErrorBodies() {}

  static String body(ApiShape dialect, int status, String message, String param) {
    return dialect == ApiShape.ANTHROPIC
        ? anthropic(status, message)
        : openAi(status, message, param);
  }

  private static String openAi(int status, String message, String param) {
    String type;
    String code;
    switch (status) {
      case 401 -> {
        type = "invalid_request_error";
        code = "invalid_api_key";
      }
      case 404 -> {
        type = "invalid_request_error";
        code = param != null ? "model_not_found" : "not_found";
      }
      case 429 -> {
        type = "requests";
        code = "rate_limit_exceeded";
      }
      case 500 -> {
        type = "server_error";
        code = null;
      }
      default -> {
        type = "invalid_request_error";
        code = null;
      }
    }
    StringBuilder out = new StringBuilder(256).append("{\"error\":{\"message\":\"");
    JsonText.append(out, message).append("\",\"type\":\"").append(type).append("\",\"param\":");
    out.append(param == null ? "null" : "\"" + JsonText.quoted(param) + "\"");
    out.append(",\"code\":").append(code == null ? "null" : "\"" + code + "\"");
    return out.append("}}").toString();
  }

  private static String anthropic(int status, String message) {
    String type =
        switch (status) {
          case 401 -> "authentication_error";
          case 404 -> "not_found_error";
          case 429 -> "rate_limit_error";
          case 500 -> "api_error";
          default -> "invalid_request_error";
        };
    StringBuilder out = new StringBuilder(256).append("{\"type\":\"error\",\"error\":{\"type\":\"");
    out.append(type).append("\",\"message\":\"");
    return JsonText.append(out, message).append("\"}}").toString();
  }
}
