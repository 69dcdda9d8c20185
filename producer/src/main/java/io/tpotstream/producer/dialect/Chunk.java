package io.tpotstream.producer.dialect;

import io.tpotstream.common.event.TokenKind;

/** What one server-sent event meant for the measurement. */
public sealed interface Chunk {
  /** An output-token chunk carrying {@code tokens} tokens (1 unless per-chunk usage said more). */
  record Token(TokenKind kind, int tokens) implements Chunk {}

  /** Not a token: role-only, empty, usage-only, ping, block start/stop. */
  record Skip() implements Chunk {}

  /** The stream said it is complete ({@code [DONE]}, {@code message_stop}). */
  record Done() implements Chunk {}

  /** Unreadable chunk (not JSON, not an object): skipped and counted, the stream goes on. */
  record Malformed(String reason) implements Chunk {}

  /** The stream carried an error or broke the protocol: the request fails with class protocol. */
  record Failed(String message) implements Chunk {}

  Skip SKIP = new Skip();
  Done DONE = new Done();

  /** A token chunk; the common one-token chunks are shared instances. */
  static Token token(TokenKind kind, int tokens) {
    if (tokens == 1) {
      return switch (kind) {
        case CONTENT -> Tokens.CONTENT;
        case REASONING -> Tokens.REASONING;
        case TOOL -> Tokens.TOOL;
      };
    }
    return new Token(kind, tokens);
  }

  /** The shared one-token chunks. */
  final class Tokens {
    static final Token CONTENT = new Token(TokenKind.CONTENT, 1);
    static final Token REASONING = new Token(TokenKind.REASONING, 1);
    static final Token TOOL = new Token(TokenKind.TOOL, 1);

    private Tokens() {}
  }
}
