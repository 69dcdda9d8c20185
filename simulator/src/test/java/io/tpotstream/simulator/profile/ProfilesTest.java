package io.tpotstream.simulator.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.stats.LatencyHistogram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilesTest {
  /** The example of docs/simulator.md. */
  static final String EXAMPLE =
      """
      {
        "models": {
          "steady-5ms": {
            "ttft": {"type": "constant", "ms": 80},
            "gap": {"type": "constant", "ms": 5}
          },
          "jittery": {
            "ttft": {"type": "lognormal", "medianMs": 300, "sigma": 0.4},
            "gap": {"type": "lognormal", "medianMs": 2.0, "p99Ms": 15, "maxMs": 60},
            "stall": {"probability": 0.001, "duration": {"type": "normal", "meanMs": 150, "stdDevMs": 20}},
            "fixedStalls": [{"beforeSeq": 50, "gapMs": 150}],
            "tokensPerChunk": {"min": 1, "max": 3},
            "outputTokens": {"min": 100, "max": 400},
            "reasoningShare": 0.3,
            "errors": {"http429": 0.01, "retryAfterSeconds": 2, "http500": 0.005,
                       "cut": 0.01, "malformed": 0.02}
          },
          "flaky-a": {"extends": "model-a", "errors": {"cut": 0.5, "cutAfterChunks": 10}},
          "bursty-a": {"extends": "model-a", "catchUp": true}
        }
      }
      """;

  @Test
  void theDocsExampleParsesIntoTheBuiltInsPlusFourProfiles() {
    Map<String, ModelProfile> profiles = Profiles.parse(EXAMPLE);

    assertEquals(
        List.of("bursty-a", "flaky-a", "jittery", "model-a", "model-b", "model-c", "steady-5ms"),
        Profiles.names(profiles));
    ModelProfile steady = profiles.get("steady-5ms");
    assertEquals(new Distribution.Constant(5), steady.gap());
    assertEquals(IntRange.exactly(1), steady.tokensPerChunk());
    assertNull(steady.outputTokens());
    ModelProfile jittery = profiles.get("jittery");
    Distribution.LogNormal gap = (Distribution.LogNormal) jittery.gap();
    assertEquals(2.0, gap.medianMs());
    assertEquals(Math.log(15 / 2.0) / Distribution.LogNormal.Z_P99, gap.sigma(), 1e-12);
    assertEquals(60, gap.maxMs());
    assertEquals(
        new Stall(0.001, new Distribution.Normal(150, 20, 0, Double.MAX_VALUE)), jittery.stall());
    assertEquals(List.of(new FixedStall(50, 150)), jittery.fixedStalls());
    assertEquals(new IntRange(1, 3), jittery.tokensPerChunk());
    assertEquals(new IntRange(100, 400), jittery.outputTokens());
    assertEquals(0.3, jittery.reasoningShare());
    assertEquals(new ErrorRates(0.01, 2, 0.005, 0.01, null, 0.02, null), jittery.errors());
    ModelProfile flaky = profiles.get("flaky-a");
    assertEquals(profiles.get("model-a").gap(), flaky.gap());
    assertEquals(profiles.get("model-a").stall(), flaky.stall());
    assertEquals(new ErrorRates(0, 1, 0, 0.5, 10, 0, null), flaky.errors());
    assertEquals(false, flaky.catchUp());
    assertEquals(profiles.get("model-a").withCatchUp(true), profiles.get("bursty-a"));
  }

  @Test
  void aFileProfileReplacesTheBuiltInOfTheSameName() {
    Map<String, ModelProfile> profiles =
        Profiles.parse("{\"models\":{\"model-a\":{\"ttft\":10,\"gap\":3}}}");

    assertEquals(new Distribution.Constant(3), profiles.get("model-a").gap());
    assertEquals(Stall.NONE, profiles.get("model-a").stall());
  }

  @Test
  void thePrefixCacheBlockAndThePrefillCostHaveDefaultsAProfileMayChange() {
    Map<String, ModelProfile> profiles =
        Profiles.parse(
            "{\"models\":{\"big-blocks\":{\"extends\":\"model-a\",\"prefixBlockTokens\":32,"
                + "\"prefillMsPerToken\":0.05}}}");

    ModelProfile builtIn = profiles.get("model-a");
    assertEquals(16, builtIn.prefixBlockTokens());
    assertEquals(0.01, builtIn.prefillMsPerToken());
    assertEquals(20_000_000, builtIn.prefillNs(2_000), "2,000 uncached tokens add 20 ms");
    assertEquals(
        builtIn.withPrefixBlockTokens(32).withPrefillMsPerToken(0.05), profiles.get("big-blocks"));
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"prefixBlockTokens\":0}}}",
        "models.x: prefixBlockTokens must be from 1 to 65536, got 0");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"prefillMsPerToken\":-1}}}",
        "models.x: prefillMsPerToken must be from 0 to 1000, got -1.0");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"prefixBlockTokens\":1.5}}}",
        "models.x.prefixBlockTokens: expected a whole number, got 1.5");
  }

  @Test
  void aGatewayDelayAndPerRequestMetricsAreOffByDefaultAndBounded() {
    Map<String, ModelProfile> profiles =
        Profiles.parse(
            "{\"models\":{\"slow-gateway\":{\"extends\":\"model-a\",\"gatewayDelayMs\":50,"
                + "\"perRequestMetrics\":true}}}");

    ModelProfile builtIn = profiles.get("model-a");
    assertEquals(0, builtIn.gatewayDelayMs());
    assertEquals(false, builtIn.perRequestMetrics());
    assertEquals(
        builtIn.withGatewayDelayMs(50).withPerRequestMetrics(true), profiles.get("slow-gateway"));
    assertEquals(50_000_000L, profiles.get("slow-gateway").gatewayDelayNs());
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"gatewayDelayMs\":60001}}}",
        "models.x: gatewayDelayMs must be from 0 to 60000, got 60001.0");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"gatewayDelayMs\":-5}}}",
        "models.x: gatewayDelayMs must be from 0 to 60000, got -5.0");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"gatewayDelayMs\":\"50ms\"}}}",
        "models.x.gatewayDelayMs: expected a number, got \"50ms\"");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"perRequestMetrics\":1}}}",
        "models.x.perRequestMetrics: expected true or false, got 1");
  }

  @Test
  void errorsNameTheFieldAtFault() {
    assertMessage(
        "{\"models\":{\"x\":{\"ttft\":1,\"gapp\":2}}}", "models.x: unknown field \"gapp\"");
    assertMessage("{\"models\":{\"x\":{\"ttft\":1}}}", "models.x: needs \"ttft\" and \"gap\"");
    assertMessage(
        "{\"models\":{\"x\":{\"ttft\":1,\"gap\":{\"type\":\"pareto\"}}}}",
        "models.x.gap.type: must be \"constant\", \"normal\" or \"lognormal\", got \"pareto\"");
    assertMessage(
        "{\"models\":{\"x\":{\"ttft\":1,\"gap\":{\"type\":\"lognormal\",\"medianMs\":2}}}}",
        "models.x.gap: give exactly one of \"sigma\" and \"p99Ms\"");
    assertMessage(
        "{\"models\":{\"x\":{\"ttft\":1,\"gap\":2,\"errors\":{\"http429\":1.5}}}}",
        "models.x.errors: http429 must be a probability in [0, 1], got 1.5");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-z\"}}}",
        "models.x.extends: no profile named 'model-z'");
    assertMessage(
        "{\"models\":{\"x\":{\"ttft\":1,\"gap\":2,\"fixedStalls\":[{\"beforeSeq\":0,\"gapMs\":5}]}}}",
        "models.x.fixedStalls[0]: beforeSeq must be at least 1");
    assertMessage(
        "{\"models\":{\"x\":{\"extends\":\"model-a\",\"catchUp\":\"yes\"}}}",
        "models.x.catchUp: expected true or false, got \"yes\"");
    assertMessage("{\"models\": [", "not valid JSON (line 1");
    assertMessage("{\"model\":{}}", "expected an object {\"models\"");
  }

  private static void assertMessage(String json, String expectedStart) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Profiles.parse(json));
    assertTrue(
        e.getMessage().startsWith(expectedStart),
        "message: " + e.getMessage() + "\nexpected to start with: " + expectedStart);
  }

  @Test
  void loadNamesTheFileInItsErrors(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("profiles.json");
    Files.writeString(file, "{\"models\":{\"x\":{\"ttft\":1}}}");

    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> Profiles.load(file));
    assertTrue(bad.getMessage().startsWith("profiles file " + file + ": models.x"));
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class, () -> Profiles.load(dir.resolve("missing.json")));
    assertEquals(
        "profiles file " + dir.resolve("missing.json") + " does not exist", missing.getMessage());
  }

  @Test
  void builtInGapsHaveTheSeedTablesMediansAndP99s() {
    Map<String, ModelProfile> builtIns = Profiles.builtIns();
    double[][] medianAndP99Ms = {{1.60, 12.88}, {3.21, 18.44}, {4.90, 25.67}};
    String[] models = {"model-a", "model-b", "model-c"};
    for (int m = 0; m < models.length; m++) {
      ModelProfile profile = builtIns.get(models[m]);
      SplittableRandom random = new SplittableRandom(m);
      LatencyHistogram gaps = new LatencyHistogram();
      for (int i = 0; i < 200_000; i++) {
        gaps.recordNanos(profile.gap().sampleNs(random));
      }
      double medianMs = gaps.percentileMicros(50) / 1000.0;
      double p99Ms = gaps.percentileMicros(99) / 1000.0;
      assertEquals(medianAndP99Ms[m][0], medianMs, medianAndP99Ms[m][0] * 0.02, models[m]);
      assertEquals(medianAndP99Ms[m][1], p99Ms, medianAndP99Ms[m][1] * 0.03, models[m]);
      assertEquals(1e-4, profile.stall().probability());
    }
    Distribution stallA = builtIns.get("model-a").stall().duration();
    LatencyHistogram stalls = new LatencyHistogram();
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < 10_000; i++) {
      stalls.recordNanos(stallA.sampleNs(random));
    }
    assertEquals(120.0, stalls.percentileMicros(50) / 1000.0, 2.0);
    assertTrue(stalls.maxMicros() <= 135_100);
  }
}
