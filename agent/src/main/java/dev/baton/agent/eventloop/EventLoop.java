package dev.baton.agent.eventloop;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * The steps the agent's selector loops (each gate's, the probes') take alike. A loop is one thread
 * that alone touches its selector and its channels; none of these blocks.
 */
public final class EventLoop {

  private EventLoop() {}

  /**
   * Hands each key the last selection found ready to {@code ready}, emptying the selected set. A
   * key cancelled meanwhile (its channel closed while an earlier key was handled) is passed over.
   */
  public static void eachReady(Selector selector, Consumer<SelectionKey> ready) {
    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
    while (keys.hasNext()) {
      SelectionKey key = keys.next();
      keys.remove();
      if (key.isValid()) {
        ready.accept(key);
      }
    }
  }

  /**
   * Hands every connection waiting on {@code server} to {@code take}. A failure to accept (out of
   * file descriptors, say) ends the round and is told to {@code failed}: the next selection tries
   * again.
   */
  public static void acceptWaiting(
      ServerSocketChannel server, Consumer<SocketChannel> take, Consumer<IOException> failed) {
    while (true) {
      SocketChannel c;
      try {
        c = server.accept();
      } catch (IOException e) {
        failed.accept(e);
        return;
      }
      if (c == null) {
        return;
      }
      take.accept(c);
    }
  }
}
