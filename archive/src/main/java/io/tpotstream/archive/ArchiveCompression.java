package io.tpotstream.archive;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/**
 * How an archive file is compressed, chosen by the end of its name: {@code .gz} (gzip), {@code
 * .zst} (Zstandard), {@code .lz4} (LZ4 frame), anything else plain JSONL. The files are the
 * standard formats, so {@code zcat}, {@code zstdcat} and {@code lz4cat} read them too. Every format
 * carries content checksums (gzip's CRC-32, zstd's and LZ4's xxHash, LZ4's per block too), so a
 * damaged block fails its reading instead of yielding wrong lines.
 */
public enum ArchiveCompression {
  NONE(0, 0, 0),
  /** Level 1 by default: 3-4× faster than gzip's usual 6 for a file about 15% larger. */
  GZIP(1, 1, 9),
  /** Level 1 by default; higher levels up to 19 compress more and more slowly. */
  ZSTD(1, 1, 19),
  /** LZ4 frames: the fastest to write and to read, the largest files of the three. */
  LZ4(0, 0, 0);

  private static final int BUFFER = 1 << 16;

  private final int defaultLevel;
  private final int minLevel;
  private final int maxLevel;

  ArchiveCompression(int defaultLevel, int minLevel, int maxLevel) {
    this.defaultLevel = defaultLevel;
    this.minLevel = minLevel;
    this.maxLevel = maxLevel;
  }

  /** The compression the name of {@code file} asks for. */
  public static ArchiveCompression of(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".gz") || name.endsWith(".gzip")) {
      return GZIP;
    }
    if (name.endsWith(".zst") || name.endsWith(".zstd")) {
      return ZSTD;
    }
    if (name.endsWith(".lz4")) {
      return LZ4;
    }
    return NONE;
  }

  /** True when the format has levels (gzip 1-9, zstd 1-19). */
  public boolean hasLevels() {
    return maxLevel > 0;
  }

  /**
   * The level to use: {@code requested}, or the default when null.
   *
   * @throws IllegalArgumentException when the level is outside the format's range, or the format
   *     has none
   */
  public int level(Integer requested) {
    if (requested == null) {
      return defaultLevel;
    }
    if (!hasLevels()) {
      throw new IllegalArgumentException(
          "--compression-level "
              + requested
              + ": "
              + (this == NONE ? "the file is not compressed" : "lz4 has no levels")
              + " (levels apply to .gz 1-9 and .zst 1-19)");
    }
    if (requested < minLevel || requested > maxLevel) {
      throw new IllegalArgumentException(
          "--compression-level "
              + requested
              + ": "
              + name().toLowerCase(Locale.ROOT)
              + " takes "
              + minLevel
              + " to "
              + maxLevel);
    }
    return requested;
  }

  /** Wraps {@code raw} (the file's bytes) to read the uncompressed JSONL. */
  public InputStream decompress(InputStream raw) throws IOException {
    return switch (this) {
      case NONE -> raw;
      case GZIP -> new GZIPInputStream(raw, BUFFER);
      case ZSTD -> new ZstdInputStreamNoFinalizer(raw);
      case LZ4 -> new LZ4FrameInputStream(raw);
    };
  }

  /**
   * Wraps {@code raw} to write compressed JSONL at {@code level} (see {@link #level}); zstd uses
   * {@code workers} extra threads when above 0.
   */
  public OutputStream compress(OutputStream raw, int level, int workers) throws IOException {
    return switch (this) {
      case NONE -> raw;
      case GZIP -> new LevelGzipOutputStream(raw, level);
      case ZSTD -> {
        ZstdOutputStreamNoFinalizer zstd = new ZstdOutputStreamNoFinalizer(raw, level);
        zstd.setChecksum(true); // a damaged frame fails its reading, never yields wrong lines
        if (workers > 0) {
          zstd.setWorkers(workers);
        }
        yield zstd;
      }
      case LZ4 ->
          new LZ4FrameOutputStream(
              raw,
              LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB,
              LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
              LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM,
              LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM);
    };
  }

  /** {@link GZIPOutputStream} at a chosen level (its constructor has none). */
  private static final class LevelGzipOutputStream extends GZIPOutputStream {
    LevelGzipOutputStream(OutputStream out, int level) throws IOException {
      super(out, BUFFER);
      def.setLevel(level); // before the first byte is deflated (the header is not)
    }
  }
}
