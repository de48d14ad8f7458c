package dev.baton.agent.gate;

/**
 * What one gate holds at most, so that hostile clients cannot take the agent's memory (its heap is
 * 24 MiB in the image, its container's limit 96 MiB; docs/design.md, "The agent's bounds").
 *
 * @param connections connections forwarded at once; more are refused (reset), or relayed in relay
 *     mode. About 2 KiB of heap each (two sockets and their keys)
 * @param pending buffers (16 KiB each, off the heap) that the gate's event loops hold, together,
 *     for peers slower than their senders; a connection that needs one more is reset
 * @param stallNanos a connection whose bytes for a slower peer have not moved for this long is
 *     reset: that peer stopped reading and would keep its buffer for good
 */
record GateLimits(int connections, int pending, long stallNanos) {

  /** 4,096 connections, 64 buffers (1 MiB), 30 s without progress. */
  static final GateLimits DEFAULT = new GateLimits(4096, 64, 30_000_000_000L);
}
