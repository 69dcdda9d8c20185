package io.tpotstream.common.summary;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Request outcomes in one window. {@code completed} includes {@code tooShort} (complete, fewer than
 * two tokens); {@code errorRate} = (failed + abandoned) / (completed + failed + abandoned).
 */
@JsonPropertyOrder({
  "started",
  "completed",
  "failed",
  "tooShort",
  "abandoned",
  "errorRate",
  "errors"
})
public record RequestCounts(
    long started,
    long completed,
    long failed,
    long tooShort,
    long abandoned,
    BigDecimal errorRate,
    SortedMap<String, Long> errors) {

  public RequestCounts {
    errors = errors == null ? new TreeMap<>() : new TreeMap<>(errors);
  }
}
