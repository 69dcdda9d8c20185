package io.tpotstream.common;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;

/**
 * Copies of records with one component changed: the one home of the settings records' {@code
 * with...} methods, which otherwise each repeat the whole component list. The copy goes through the
 * canonical constructor, so its checks run again.
 */
public final class Records {
  private Records() {}

  /**
   * {@code record} with its component {@code name} set to {@code value}.
   *
   * @throws IllegalArgumentException when the record has no such component or the value's type does
   *     not fit it (a programming error: each call names a component of its own record)
   */
  public static <R extends Record> R with(R record, String name, Object value) {
    RecordComponent[] components = record.getClass().getRecordComponents();
    Object[] values = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    boolean found = false;
    try {
      for (int i = 0; i < components.length; i++) {
        types[i] = components[i].getType();
        if (components[i].getName().equals(name)) {
          values[i] = value;
          found = true;
        } else {
          values[i] = components[i].getAccessor().invoke(record);
        }
      }
      if (!found) {
        throw new IllegalArgumentException(
            record.getClass().getSimpleName() + " has no component '" + name + "'");
      }
      @SuppressWarnings("unchecked")
      Constructor<R> canonical = (Constructor<R>) record.getClass().getDeclaredConstructor(types);
      canonical.setAccessible(true);
      return canonical.newInstance(values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime; // the record's own check, e.g. an out-of-range setting
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          "cannot copy " + record.getClass().getSimpleName() + " with '" + name + "': " + e, e);
    }
  }
}
