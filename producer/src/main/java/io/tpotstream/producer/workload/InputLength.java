package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The prompt's length and its class, the {@code input_len} label: {@code 0-127}, {@code 128-511},
 * {@code 512-1023}, {@code 1024-2047}, {@code 2048-4095}, {@code 4096-8191}, {@code 8192+}
 * (tokens). Texts are estimated at four characters per token (OpenAI's rule of thumb for English;
 * no tokenizer is loaded); synthetic prompts know their exact length.
 */
public final class InputLength {
  /** The label's name. */
  public static final String LABEL = "input_len";

  private static final int[] BOUNDS = {128, 512, 1024, 2048, 4096, 8192};

  private InputLength() {}

  /** The class of a prompt of {@code tokens} tokens. */
  public static String classOf(int tokens) {
    int low = 0;
    for (int bound : BOUNDS) {
      if (tokens < bound) {
        return low + "-" + (bound - 1);
      }
      low = bound;
    }
    return low + "+";
  }

  /** The estimated tokens of the messages' text: characters / 4, rounded up. */
  public static int estimate(JsonNode messages) {
    long chars = 0;
    for (JsonNode m : messages) {
      chars += textLength(m.get("content"));
    }
    return (int) Math.min(Integer.MAX_VALUE, (chars + 3) / 4);
  }

  private static long textLength(JsonNode content) {
    if (content == null || content.isNull()) {
      return 0;
    }
    if (content.isTextual()) {
      return content.asText().length();
    }
    long chars = 0;
    if (content.isArray()) {
      for (JsonNode part : content) {
        chars += part.isTextual() ? part.asText().length() : part.path("text").asText("").length();
      }
    }
    return chars;
  }
}
