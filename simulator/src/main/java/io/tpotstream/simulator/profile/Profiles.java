package io.tpotstream.simulator.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The built-in model profiles, and profiles read from a JSON file (see the README section). */
public final class Profiles {
  private Profiles() {}

  /**
   * {@code model-a}, {@code model-b} and {@code model-c}, shaped like the seed article's table:
   * log-normal gaps with medians 1.6, 3.21 and 4.9 ms and P99s 12.88, 18.44 and 25.67 ms, plus
   * stalls in about 1 gap of 10,000 near 120, 156 and 210 ms. Their output is exactly the request's
   * {@code max_tokens} (256 when absent), one token per chunk, no reasoning, no faults.
   */
  public static Map<String, ModelProfile> builtIns() {
    Map<String, ModelProfile> profiles = new TreeMap<>();
    profiles.put("model-a", builtIn(150, 1.60, 12.88, 120, 135));
    profiles.put("model-b", builtIn(250, 3.21, 18.44, 156, 178));
    profiles.put("model-c", builtIn(400, 4.90, 25.67, 210, 245));
    return profiles;
  }

  private static ModelProfile builtIn(
      double ttftMedianMs, double gapMedianMs, double gapP99Ms, double stallMs, double maxMs) {
    Distribution.LogNormal shape = Distribution.LogNormal.ofMedianAndP99(gapMedianMs, gapP99Ms);
    // below the stalls: the log-normal's own far tail is cut where the stalls begin
    Distribution gap = new Distribution.LogNormal(gapMedianMs, shape.sigma(), 0, stallMs * 0.8);
    Distribution stall =
        new Distribution.Normal(stallMs, (maxMs - stallMs) / 3, stallMs * 0.85, maxMs);
    return ModelProfile.of(new Distribution.LogNormal(ttftMedianMs, 0.3, 0, ttftMedianMs * 5), gap)
        .withStall(new Stall(1e-4, stall));
  }

  /**
   * The built-ins plus (replacing any of the same name) the profiles in {@code file}.
   *
   * @throws IllegalArgumentException with a one-line message naming the file and the bad field
   */
  public static Map<String, ModelProfile> load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("profiles file " + file + " does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read profiles file " + file + ": " + e, e);
    }
    try {
      return parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("profiles file " + file + ": " + e.getMessage(), e);
    }
  }

  /** The built-ins plus the profiles in a JSON text ({@code {"models": {name: profile}}}). */
  public static Map<String, ModelProfile> parse(String json) {
    Map<String, ModelProfile> profiles = new TreeMap<>(builtIns());
    profiles.putAll(ProfileParser.parse(json, profiles));
    return profiles;
  }

  /** The models of {@code profiles}, sorted, as a user reads them. */
  public static List<String> names(Map<String, ModelProfile> profiles) {
    return List.copyOf(new TreeMap<>(profiles).keySet());
  }
}
