package io.fleetwave.agent.hostclients;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A UNIX socket server that accepts every connection and never answers (a wedged bus). */
public final class SilentSocket implements AutoCloseable {
  private final ServerSocketChannel server;
  private final List<SocketChannel> accepted = new CopyOnWriteArrayList<>();

  public SilentSocket(Path path) throws IOException {
    java.nio.file.Files.createDirectories(path.getParent());
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(path));
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try {
                while (true) {
                  accepted.add(server.accept());
                }
              } catch (IOException closed) {
                // closed by close()
              }
            });
  }

  public int acceptedConnections() {
    return accepted.size();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (SocketChannel channel : accepted) {
      channel.close();
    }
  }
}
