package io.tpotstream.common.summary;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The window's histograms, base64 of HdrHistogram's compressed encoding (µs), so that any consumer
 * can merge windows exactly. {@code scheduleLag} and {@code ttftFromIntended} only in open-loop
 * runs; {@code tpotClientTouched} (the TPOT samples the client's own lag touched, a subset of
 * {@code tpot}) and {@code tpotClientCorrected} (the same with the client's lag taken out of each
 * gap) only when there were some.
 */
@JsonPropertyOrder({
  "tpot",
  "ttft",
  "requestTpot",
  "e2e",
  "scheduleLag",
  "ttftFromIntended",
  "tpotClientTouched",
  "tpotClientCorrected"
})
public record EncodedHistograms(
    String tpot,
    String ttft,
    String requestTpot,
    String e2e,
    String scheduleLag,
    String ttftFromIntended,
    String tpotClientTouched,
    String tpotClientCorrected) {}
