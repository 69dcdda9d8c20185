package io.tpotstream.sink.file;

/**
 * A sink file that another writer holds; the message names the file and, when known, the holder.
 */
public final class FileInUseException extends IllegalStateException {
  FileInUseException(String message) {
    super(message);
  }
}
