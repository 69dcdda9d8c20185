package io.tpotstream.sink.record;

/** One (series, window) pair, the unit every sink output holds exactly once. */
public record WindowKey(String series, long windowEndMs) {}
