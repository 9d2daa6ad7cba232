package io.fleetwave.testsupport.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server that accepts every connection and never answers: a wedged bus (a UNIX socket) or an API
 * server that hangs (a TCP port).
 */
public final class SilentSocket implements AutoCloseable {
  private final ServerSocketChannel server;
  private final List<SocketChannel> accepted = new CopyOnWriteArrayList<>();

  /** On a UNIX socket at {@code path}. */
  public SilentSocket(Path path) throws IOException {
    this(unix(path));
  }

  /** On a free TCP port of every local address ({@link #port()}). */
  public static SilentSocket onFreePort() throws IOException {
    return new SilentSocket(ServerSocketChannel.open().bind(new InetSocketAddress(0)));
  }

  private SilentSocket(ServerSocketChannel server) {
    this.server = server;
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

  private static ServerSocketChannel unix(Path path) throws IOException {
    Files.createDirectories(path.getParent());
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(path));
    return server;
  }

  /** The TCP port of {@link #onFreePort()}. */
  public int port() throws IOException {
    return ((InetSocketAddress) server.getLocalAddress()).getPort();
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
