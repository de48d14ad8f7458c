package dev.baton.client;

import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The context of a client that only speaks plain HTTP: any use of it is a bug, and says so. Given
 * to {@link PodWatch}'s client (built by {@link PodRequests}) for an {@code http://} API server so
 * that the JDK does not build its default TLS context for connections it will never make
 * (docs/design.md, "The agent: leadership, locks and a gate for any container", <i>No TLS for a
 * plain-HTTP API server</i>).
 */
final class NoTls extends SSLContext {

  NoTls() {
    super(new Spi(), null, "none");
  }

  private static final class Spi extends SSLContextSpi {
    private static IllegalStateException plainHttp() {
      return new IllegalStateException("the API server is plain HTTP: this client has no TLS");
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
      throw plainHttp();
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      throw plainHttp();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      throw plainHttp();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      throw plainHttp();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      throw plainHttp();
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      throw plainHttp();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      throw plainHttp();
    }
  }
}
