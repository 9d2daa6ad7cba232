package io.fleetwave.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The regular files of a source tree, without entering a build output ({@code target}) or git's
 * directories. The modules build beside these tests, each fork deleting its own files under its
 * module's target directory as it ends, and a walk into a directory deleted under it fails
 * (NoSuchFileException: a CI run lost ReleaseScriptTest to the simulator's target/surefire).
 */
final class SourceTree {
  private SourceTree() {}

  static List<Path> files(Path root) {
    List<Path> files = new ArrayList<>();
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
              String name = dir.equals(root) ? "" : dir.getFileName().toString();
              return name.equals("target") || name.startsWith(".git")
                  ? FileVisitResult.SKIP_SUBTREE
                  : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              if (attributes.isRegularFile()) {
                files.add(file);
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the files under " + root, e);
    }
    return files;
  }
}
