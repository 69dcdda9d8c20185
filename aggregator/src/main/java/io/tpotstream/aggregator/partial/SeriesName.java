package io.tpotstream.aggregator.partial;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A series as summaries carry it: its name ({@code model} or {@code model{k=v,...}}), the model and
 * the grouped labels.
 */
public record SeriesName(String series, String model, SortedMap<String, String> labels) {
  public SeriesName {
    labels =
        Collections.unmodifiableSortedMap(
            new TreeMap<>(labels == null ? Collections.emptySortedMap() : labels));
  }

  public void writeTo(BinaryWriter out) {
    out.writeString(series).writeString(model).writeVarLong(labels.size());
    labels.forEach((k, v) -> out.writeString(k).writeString(v));
  }

  public static SeriesName readFrom(BinaryReader in) {
    String series = in.readString();
    String model = in.readString();
    int n = in.readVarInt();
    SortedMap<String, String> labels = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      labels.put(in.readString(), in.readString());
    }
    return new SeriesName(series, model, labels);
  }
}
