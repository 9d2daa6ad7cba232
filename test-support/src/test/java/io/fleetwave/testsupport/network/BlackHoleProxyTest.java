package io.fleetwave.testsupport.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

/** The proxy against a loopback echo server: forwarding, black-holing, healing. */
class BlackHoleProxyTest {
  private static final int READ_BOUND_MS = 5000;
  // How long a read waits to show that nothing came back (the black hole's silence).
  private static final int SILENCE_MS = 300;

  @Test
  void aHealedProxyResetsTheConnectionsThatLivedThroughTheBlackHoleAndForwardsNewOnes()
      throws Exception {
    try (ServerSocket echo = echoServer();
        BlackHoleProxy proxy = BlackHoleProxy.to("localhost", echo.getLocalPort());
        Socket before = connect(proxy)) {
      assertThat(roundTrip(before, 'a')).isEqualTo('a');

      proxy.blackHole();
      before.getOutputStream().write('b');
      before.setSoTimeout(SILENCE_MS);
      assertThatThrownBy(() -> before.getInputStream().read())
          .as("nothing comes back through the black hole")
          .isInstanceOf(SocketTimeoutException.class);

      proxy.heal();
      before.setSoTimeout(READ_BOUND_MS);
      assertThat(readOrReset(before.getInputStream()))
          .as("the connection that lived through it is reset")
          .isEqualTo(-1);
      try (Socket after = connect(proxy)) {
        assertThat(roundTrip(after, 'c')).as("a new connection is forwarded").isEqualTo('c');
      }
    }
  }

  private static int readOrReset(InputStream in) throws IOException {
    try {
      return in.read();
    } catch (java.net.SocketException reset) {
      return -1;
    }
  }

  private static Socket connect(BlackHoleProxy proxy) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    socket.setSoTimeout(READ_BOUND_MS);
    return socket;
  }

  private static int roundTrip(Socket socket, char value) throws IOException {
    socket.getOutputStream().write(value);
    socket.getOutputStream().flush();
    return socket.getInputStream().read();
  }

  private static ServerSocket echoServer() throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket client = server.accept();
                  Thread.ofPlatform().daemon().start(() -> echo(client));
                } catch (IOException closed) {
                  return;
                }
              }
            });
    return server;
  }

  private static void echo(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      int b;
      while ((b = in.read()) >= 0) {
        client.getOutputStream().write(b);
      }
    } catch (IOException closed) {
      // the test is over
    }
  }
}
