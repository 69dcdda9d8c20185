package io.tpotstream.app.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads sizes in bytes as users write them: 500000, 64KB, 256MB, 1.5GB (powers of 1000), 64KiB,
 * 256MiB, 1GiB (powers of 1024); K, M, G alone are KiB, MiB, GiB.
 */
final class ByteSizeConverter implements ITypeConverter<Long> {
  private static final Pattern SIZE =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(i?)(b?)", Pattern.CASE_INSENSITIVE);

  @Override
  public Long convert(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (m.matches()) {
      String unit = m.group(2).toLowerCase(Locale.ROOT);
      boolean binary = !m.group(3).isEmpty() || (!unit.isEmpty() && m.group(4).isEmpty());
      if (unit.isEmpty() && !m.group(3).isEmpty()) {
        throw invalid(text);
      }
      double base = binary ? 1024 : 1000;
      int power = unit.isEmpty() ? 0 : "kmgt".indexOf(unit) + 1;
      double bytes = Double.parseDouble(m.group(1)) * Math.pow(base, power);
      if (bytes >= 1 && bytes < Long.MAX_VALUE) {
        return (long) bytes;
      }
    }
    throw invalid(text);
  }

  private static TypeConversionException invalid(String text) {
    return new TypeConversionException(
        "invalid size '" + text + "': write it like 500000, 64KB, 256MB, 1GB or 256MiB");
  }
}
