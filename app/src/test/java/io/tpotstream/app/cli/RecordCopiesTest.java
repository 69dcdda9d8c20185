package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.simulator.SimulatorConfig;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Every one-argument {@code with...} method of the settings records goes through {@code
 * Records.with}, which finds the component by name at run time: each is called here with the
 * current value of its component and must give back an equal record (a misspelt name would throw).
 */
class RecordCopiesTest {
  @Test
  void everyWithMethodNamesAComponentOfItsRecord() throws Exception {
    List<Record> settings =
        List.of(
            AggregatorConfig.defaults("localhost:9092"),
            StageSettings.defaults(),
            KafkaSettings.of("localhost:9092"),
            ProxyConfig.of(0, Upstream.parse("http://127.0.0.1:1")),
            SimulatorConfig.defaults(),
            SimulatorConfig.defaults().profiles().values().iterator().next());
    for (Record r : settings) {
      List<String> checked = new ArrayList<>();
      for (Method m : r.getClass().getMethods()) {
        if (!m.getName().startsWith("with")
            || m.getParameterCount() != 1
            || Modifier.isStatic(m.getModifiers())
            || m.getReturnType() != r.getClass()) {
          continue;
        }
        RecordComponent c = componentFor(r, m);
        Object copy = m.invoke(r, c.getAccessor().invoke(r));
        assertEquals(r, copy, r.getClass().getSimpleName() + "." + m.getName());
        checked.add(m.getName());
      }
      assertTrue(checked.size() >= 3, r.getClass().getSimpleName() + ": " + checked);
    }
  }

  /** The component the method sets: the one its name names, else the first of its type. */
  private static RecordComponent componentFor(Record r, Method m) {
    String named = m.getName().substring(4).toLowerCase(Locale.ROOT);
    RecordComponent sameType = null;
    for (RecordComponent c : r.getClass().getRecordComponents()) {
      if (!box(c.getType()).equals(box(m.getParameterTypes()[0]))) {
        continue;
      }
      String component = c.getName().toLowerCase(Locale.ROOT);
      if (named.startsWith(component) || component.startsWith(named)) {
        return c;
      }
      sameType = sameType == null ? c : sameType;
    }
    if (sameType == null) {
      throw new AssertionError(
          r.getClass().getSimpleName() + "." + m.getName() + " sets no component of its type");
    }
    return sameType;
  }

  private static Class<?> box(Class<?> type) {
    if (!type.isPrimitive()) {
      return type;
    }
    return switch (type.getName()) {
      case "int" -> Integer.class;
      case "long" -> Long.class;
      case "double" -> Double.class;
      case "boolean" -> Boolean.class;
      default -> type;
    };
  }
}
