package io.fleetwave.agent.publish;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The agent's files in its state directory are replaced, never edited in place, so that a crash or
 * a power loss leaves the old content or the new one, never a torn mix: the new content is written
 * beside the file, forced to disk, renamed over it, and the directory forced so the rename lasts.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /** What writes a file's new content. */
  @FunctionalInterface
  interface Content {
    void writeTo(FileChannel out) throws IOException;
  }

  /** Replaces the file's content with this text ({@code NAME.next} beside it while written). */
  public static void replace(Path file, String content) throws IOException {
    replace(file, out -> out.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8))));
  }

  /** Replaces the file's content with what {@code content} writes ({@code NAME.next} meanwhile). */
  static void replace(Path file, Content content) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.createDirectories(file.getParent());
    try (FileChannel out =
        FileChannel.open(
            next,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      content.writeTo(out);
      out.force(true);
    }
    moveOver(next, file);
  }

  /** Renames a written and forced file over another, then forces their directory. */
  private static void moveOver(Path next, Path file) throws IOException {
    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // Some file systems cannot fsync a directory; the rename is still atomic there.
    }
  }
}
