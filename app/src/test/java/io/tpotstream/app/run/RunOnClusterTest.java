package io.tpotstream.app.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunOnClusterTest {
  @Test
  void everyNameOfARunStartsWithItsApplicationIdWhichTellsWhenItStarted() {
    Instant before = Instant.now().minusMillis(1);
    RunOnCluster run = RunOnCluster.fresh();
    assertTrue(run.applicationId().matches("tpot-run-[0-9a-z]{11}"), run.applicationId());
    assertEquals(run.applicationId() + "-window-summaries", run.summariesTopic());
    assertEquals(run.applicationId() + "-sink", run.sinkGroup());
    Instant start = RunOnCluster.startOf(run.applicationId()).orElseThrow();
    assertTrue(!start.isBefore(before) && start.isBefore(before.plus(Duration.ofSeconds(5))));
    assertNotEquals(run.applicationId(), RunOnCluster.fresh().applicationId());
    assertEquals(Optional.empty(), RunOnCluster.startOf("tpot-aggregator"));
    assertEquals(Optional.empty(), RunOnCluster.startOf(run.sinkGroup()));
  }
}
