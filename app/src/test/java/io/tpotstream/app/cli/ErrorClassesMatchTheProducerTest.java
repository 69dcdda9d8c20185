package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.producer.http.ErrorClass;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The error classes the sink exports from 0 are exactly those the producer writes. */
class ErrorClassesMatchTheProducerTest {
  @Test
  void theSinksListIsTheProducersEnum() {
    assertEquals(
        Arrays.stream(ErrorClass.values()).map(ErrorClass::wire).toList(), ErrorClasses.KNOWN);
  }
}
