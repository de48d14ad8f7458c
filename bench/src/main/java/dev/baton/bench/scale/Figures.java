package dev.baton.bench.scale;

import dev.baton.bench.locks.RedisInfo;
import java.nio.file.Path;
import java.util.Map;

/** What one scale run measured, gathered for the report. */
final class Figures {
  int groups;
  int namespaces;
  double coldStartSeconds;
  double readySeconds;
  double firstLeaderSeconds;
  double[] convergedShareSeconds;
  CpuSample cold0;
  CpuSample cold1;
  Map<String, Long> coldThreads;
  Map<String, Long> coldRequests;
  RedisInfo coldRedis;
  CpuSample steady0;
  CpuSample steady1;
  Map<String, Long> steadyThreads0;
  Map<String, Long> steadyThreads1;
  boolean redisFound;
  RedisInfo steadyRedis;
  Map<String, Long> steadyRequests;
  boolean stillConverged;
  long steadyTermChanges;
  JvmMemory memory;
  ScaleBench.Deletions deletions;
  SeriesPerGroup series;
  ScaleBench.Burst burst;
  Path log;
}
