package io.tpotstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SeriesTest {
  @Test
  void namesWithoutStructuralCharactersAreWrittenAsTheyAre() {
    assertEquals("gpt-4o", Series.name("gpt-4o", null));
    assertEquals("gpt-4o", Series.name("gpt-4o", Map.of()));
    assertEquals(
        "org/m:1.5{concurrency=5,target=a b}",
        Series.name("org/m:1.5", Map.of("target", "a b", "concurrency", "5")));
  }

  @Test
  void aModelThatLooksLikeLabelsIsNotTheModelWithThoseLabels() {
    String model = Series.name("m{a=b}", Map.of());
    String labelled = Series.name("m", Map.of("a", "b"));
    assertEquals("m\\{a=b}", model);
    assertEquals("m{a=b}", labelled);
    assertNotEquals(model, labelled);
  }

  @Test
  void labelValuesThatLookLikeSeveralLabelsStayOneLabel() {
    String one = Series.name("m", Map.of("a", "1,b=2"));
    String two = Series.name("m", Map.of("a", "1", "b", "2"));
    assertEquals("m{a=1\\,b\\=2}", one);
    assertEquals("m{a=1,b=2}", two);
    assertNotEquals(one, two);
  }

  @Test
  void aLabelNameWithAnEqualsSignIsNotSplitAtIt() {
    assertNotEquals(Series.name("m", Map.of("a=b", "c")), Series.name("m", Map.of("a", "b=c")));
    assertEquals("m{a\\=b=c}", Series.name("m", Map.of("a=b", "c")));
  }

  @Test
  void aBackslashIsEscapedSoThatItCannotHideAnEscape() {
    // model "m\" with label a=b against model "m\{a=b}" alone: both would read m\{a=b} unescaped
    String backslashModel = Series.name("m\\", Map.of("a", "b"));
    String braceModel = Series.name("m\\{a=b}", Map.of());
    assertEquals("m\\\\{a=b}", backslashModel);
    assertEquals("m\\\\\\{a=b}", braceModel);
    assertNotEquals(backslashModel, braceModel);
    assertNotEquals(
        Series.name("m", Map.of("a", "x\\", "b", "y")), Series.name("m", Map.of("a", "x\\,b=y")));
  }

  @Test
  void aClosingBraceInALabelIsEscaped() {
    assertEquals("m{a=\\}x}", Series.name("m", Map.of("a", "}x")));
    assertNotEquals(
        Series.name("m", Map.of("a", "b}{c=d")), Series.name("m", Map.of("a", "b", "c", "d")));
  }
}
