package io.fleetwave.testsupport.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on an ephemeral loopback port to one target, which can black-hole every connection
 * through it: after {@link #blackHole()} bytes are read and dropped in both directions and new
 * connections are accepted but never forwarded, while no socket is closed. Both ends then see a
 * peer that went silent, as when a network drops packets, rather than a closed or refused
 * connection: only their own timeouts tell them.
 */
public final class BlackHoleProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean blackHoled;
  private volatile boolean closed;

  private BlackHoleProxy(InetSocketAddress target, ServerSocket server) {
    this.target = target;
    this.server = server;
  }

  /** A proxy forwarding to {@code host:port}, accepting from now on. */
  public static BlackHoleProxy to(String host, int port) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      BlackHoleProxy proxy = new BlackHoleProxy(new InetSocketAddress(host, port), server);
      Thread.ofPlatform().daemon().name("black-hole-proxy-accept").start(proxy::accept);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("could not open the proxy's port", e);
    }
  }

  /** The loopback port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** From now on nothing passes, in either direction, and nothing is closed. */
  public synchronized void blackHole() {
    blackHoled = true;
  }

  /**
   * Ends the black hole: connections made from now on are forwarded again. Those that lived through
   * it are reset (closed on both sides), as a partition long enough that the peers' retransmissions
   * gave up ends: the bytes dropped meanwhile are gone, so what they carried cannot go on.
   */
  public synchronized void heal() {
    sockets.forEach(BlackHoleProxy::closeQuietly);
    sockets.clear();
    blackHoled = false;
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      synchronized (this) {
        sockets.add(client);
        if (blackHoled) {
          drainQuietly(client);
          continue;
        }
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 5000);
        sockets.add(upstream);
        pipe(client, upstream, "up");
        pipe(upstream, client, "down");
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pipe(Socket from, Socket to, String direction) {
    Thread.ofPlatform()
        .daemon()
        .name("black-hole-proxy-" + direction)
        .start(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  if (!blackHoled) {
                    out.write(buffer, 0, read);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // One side closed: close the other so the pair ends together (not black-holed).
              }
              if (!blackHoled) {
                closeQuietly(to);
              }
            });
  }

  private void drainQuietly(Socket socket) {
    Thread.ofPlatform()
        .daemon()
        .name("black-hole-proxy-drain")
        .start(
            () -> {
              byte[] buffer = new byte[4096];
              try (InputStream in = socket.getInputStream()) {
                while (in.read(buffer) >= 0) {
                  // dropped
                }
              } catch (IOException e) {
                // closed by the client or by close()
              }
            });
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  /** Closes the port and every connection (the test is over). */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    sockets.forEach(BlackHoleProxy::closeQuietly);
  }
}
