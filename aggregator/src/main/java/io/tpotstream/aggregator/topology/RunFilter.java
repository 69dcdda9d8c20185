package io.tpotstream.aggregator.topology;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import org.apache.kafka.streams.kstream.Predicate;

/**
 * Keeps the records of one run ({@code runId} equal to the run's), heartbeats included, so that
 * {@code tpot run} on a shared topic aggregates its own events only. Reads top-level fields with
 * Jackson's streaming parser up to {@code runId}; a record that is not a JSON object, or has no
 * {@code runId}, is not this run's and is skipped (the long-lived aggregator dead-letters it).
 */
final class RunFilter implements Predicate<byte[], byte[]> {
  private static final JsonFactory JSON = new JsonFactory();

  private final String runId;

  RunFilter(String runId) {
    this.runId = runId;
  }

  @Override
  public boolean test(byte[] key, byte[] value) {
    if (value == null) {
      return false;
    }
    try (JsonParser p = JSON.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken token = p.nextToken();
        if ("runId".equals(field)) {
          return token == JsonToken.VALUE_STRING && runId.equals(p.getText());
        }
        p.skipChildren();
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }
}
