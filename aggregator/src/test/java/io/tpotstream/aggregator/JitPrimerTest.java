package io.tpotstream.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventDecoder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The primer shows the JIT every shape of event a producer writes, so that what it compiled is not
 * thrown away at the first real record of another shape.
 */
class JitPrimerTest {
  /**
   * Every field a producer writes: the event's JSON fields but droppedEvents, which it writes only
   * after its buffer overflowed.
   */
  private static final Set<String> FIELDS =
      Arrays.stream(TokenEvent.class.getAnnotation(JsonPropertyOrder.class).value())
          .filter(name -> !name.equals("droppedEvents"))
          .collect(Collectors.toCollection(TreeSet::new));

  @Test
  void theMadeUpTrafficHasEveryEventTypeAndFieldInTimeOrderAndDecodes() throws Exception {
    List<JitPrimer.Keyed> events = JitPrimer.events();
    TokenEventDecoder decoder = new TokenEventDecoder();
    ObjectMapper json = new ObjectMapper();
    Set<EventType> types = EnumSet.noneOf(EventType.class);
    Set<String> fields = new TreeSet<>();
    Set<String> kinds = new TreeSet<>();
    Set<String> labelSets = new TreeSet<>();
    Set<String> open = new TreeSet<>();
    int mostOpen = 0;
    long previousTs = Long.MIN_VALUE;
    for (JitPrimer.Keyed e : events) {
      DecodedEvent decoded = decoder.decode(e.key(), e.value()); // throws on a problem
      types.add(decoded.type());
      assertEquals(e.ts(), decoded.ts());
      assertTrue(e.ts() >= previousTs, "in time order");
      previousTs = e.ts();
      JsonNode node = json.readTree(e.value());
      node.fieldNames().forEachRemaining(fields::add);
      if (node.has("kind")) {
        kinds.add(node.get("kind").asText());
      }
      switch (decoded.type()) {
        case START -> {
          labelSets.add(String.valueOf(node.get("labels")));
          open.add(node.get("requestId").asText());
          mostOpen = Math.max(mostOpen, open.size());
        }
        case END, ERROR -> open.remove(node.get("requestId").asText());
        default -> {}
      }
    }
    assertEquals(EnumSet.allOf(EventType.class), types);
    assertEquals(29, FIELDS.size());
    assertEquals(FIELDS, fields);
    assertEquals(Set.of("content", "reasoning"), kinds);
    assertEquals(3, labelSets.size(), "label sets: " + labelSets);
    assertTrue(mostOpen >= 50, "requests in flight at once: " + mostOpen);
    assertTrue(open.isEmpty(), "every request ends");
    assertTrue(events.size() > 10_000, "enough records for the JIT: " + events.size());
  }

  @Test
  void aRoundOfPrimingRunsThroughWithoutAProblem() {
    JitPrimer.run();
  }
}
