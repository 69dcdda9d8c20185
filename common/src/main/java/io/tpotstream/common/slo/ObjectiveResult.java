package io.tpotstream.common.slo;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;

/**
 * One objective evaluated on one window (or a whole run): its limit and measured value (ms for
 * latencies, a fraction for {@code error_rate} and {@code goodput}; measured is omitted when there
 * was nothing to measure, which counts as met).
 */
@JsonPropertyOrder({"name", "limit", "measured", "met"})
public record ObjectiveResult(String name, BigDecimal limit, BigDecimal measured, boolean met) {}
