package io.tpotstream.common.slo;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.List;

/**
 * The {@code slo} section of a window summary (docs/design.md, "SLOs"): each objective with its
 * limit, measured value and verdict; {@code goodput}, the share of the window's finished requests
 * that met every {@code --goodput} limit (omitted without limits or without finished requests), and
 * {@code goodRequests}, their count (so that windows merge exactly); {@code met} when every
 * objective was met (one with no data never is: see {@link ObjectiveResult}).
 */
@JsonPropertyOrder({"objectives", "goodput", "goodRequests", "met"})
public record SloResult(
    List<ObjectiveResult> objectives, BigDecimal goodput, Long goodRequests, boolean met) {

  public SloResult {
    objectives = objectives == null ? List.of() : List.copyOf(objectives);
  }

  /** The missed objectives as one phrase, e.g. {@code tpot_p99 62.3 ms > 50 ms}; empty if none. */
  public String missedText() {
    return String.join(", ", missed().stream().map(ObjectiveResult::describe).toList());
  }

  /** The objectives that were not met, those with no data included. */
  public List<ObjectiveResult> missed() {
    return objectives.stream().filter(o -> !o.met()).toList();
  }
}
