package io.tpotstream.simulator.profile;

/** A rare stall: each gap is replaced, with {@code probability}, by a draw of {@code duration}. */
public record Stall(double probability, Distribution duration) {
  public static final Stall NONE = new Stall(0, new Distribution.Constant(0));

  public Stall {
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("probability must be in [0, 1], got " + probability);
    }
  }
}
