package io.tpotstream.app.cli;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Token events of run "run", model "m" and producer "p1" for the command tests, and their file. */
public final class TestEvents {
  private TestEvents() {}

  /** One content chunk of one token, {@code elapsedNs} after its request started. */
  public static TokenEvent content(
      long ts, String requestId, Map<String, String> labels, long elapsedNs, int seq) {
    return TokenEvent.token(
        ts, "run", requestId, "m", labels, elapsedNs, seq, 1, TokenKind.CONTENT, "p1");
  }

  /** Writes {@code events} to {@code file}, one JSON line each, as the producer publishes them. */
  public static Path write(Path file, List<TokenEvent> events) throws IOException {
    List<String> lines = new ArrayList<>();
    for (TokenEvent e : events) {
      lines.add(TokenEventCodec.encodeToString(e));
    }
    return Files.write(file, lines);
  }
}
