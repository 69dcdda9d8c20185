package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;

/** Where the {@link Recorder} puts the events it makes: the {@link Publisher}, or a rehearsal. */
interface EventOut {
  /** An event of {@code request} (null for none). */
  void append(RequestRecord request, TokenEvent event);

  /** A token event of {@code request}, as numbers ({@code bits}: {@link HeldEvents#chunkBits}). */
  void appendToken(RequestRecord request, long ts, long elapsedNs, int seq, int bits);
}
