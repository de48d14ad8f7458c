# syntax=docker/dockerfile:1
#
# The Baton operator image: `docker build -t ghcr.io/baton-dev/baton-operator:0.1.0 .`
# Pin the two base images by digest for reproducible production builds.

# --- build: the shaded jar, operator/target/baton-operator.jar --------------------------------
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Poms first, then sources: editing a source file does not invalidate the layers above it.
COPY pom.xml ./
COPY client/pom.xml client/
COPY api/pom.xml api/
COPY testkit/pom.xml testkit/
COPY operator/pom.xml operator/
COPY demo/pom.xml demo/
COPY agent/pom.xml agent/
# The other modules' poms only: Maven reads every module of the reactor, and builds none of them.
COPY bench/pom.xml bench/
COPY examples/worker/pom.xml examples/worker/
COPY kubectl/pom.xml kubectl/
COPY client/src client/src
COPY api/src api/src
COPY testkit/src testkit/src
COPY operator/src operator/src
COPY demo/src demo/src
COPY agent/src agent/src
# The cache mount keeps downloaded dependencies between builds (BuildKit).
# The operator and the modules it depends on, and the demo, which trains the class archive below
# (the test kit, a test dependency of the operator, is not packaged into the operator's jar; of the
# benchmarks and the example only the poms).
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl operator,demo,agent -am package

# --- class archive: the classes a start and the first failovers load, stored ahead (AppCDS) -----
# The demo's script (elections, failovers, a switchover, a lock reaped) runs against the operator
# jar in its own process, on the runtime image's JVM: an archive is only used by the JVM and the
# jar that wrote it. With it the operator answers /readyz 1 to 1.5 s sooner (docs/design.md, "Cold
# start and the first failover"). The training needs nothing but java (no kill, no shell tools).
# A training that fails fails the build: an empty or broken archive is not ignored by the JVM, it
# turns off class-data sharing altogether, and the start is slower than with no archive at all.
# The last step proves the archive maps: -Xshare:on refuses to start with one that does not.
FROM eclipse-temurin:17-jre AS class-archive
WORKDIR /app
COPY --from=build /src/operator/target/baton-operator.jar /app/baton-operator.jar
COPY --from=build /src/demo/target/baton-demo.jar /tmp/baton-demo.jar
RUN java -cp /tmp/baton-demo.jar dev.baton.demo.ClassArchiveTraining \
      /app/baton-operator.jar /app/baton-operator.jsa \
 && java -Xshare:on -XX:SharedArchiveFile=/app/baton-operator.jsa -jar /app/baton-operator.jar version
# The agent's archive, trained by its own entrypoint with the options it runs with: eight seconds
# of its start against an API server and a Redis that do not answer, then SIGTERM, on which the JVM
# writes the archive, then a start with sharing required. Start to /readyz falls from about 1.2 s
# to 0.6 s (bench/results).
COPY --from=build /src/agent/target/baton-agent.jar /app/baton-agent.jar
COPY --chmod=0755 agent/src/main/image/baton-agent /app/baton-agent
RUN /app/baton-agent train-class-archive

# --- runtime: a JRE, the jar and its class archive, nothing else ------------------------------
FROM eclipse-temurin:17-jre

LABEL org.opencontainers.image.title="baton-operator" \
      org.opencontainers.image.description="Leader elections and distributed locks in Redis for Kubernetes pods"

# A fixed numeric user, so that Kubernetes can check runAsNonRoot without reading /etc/passwd.
# The Helm chart runs the pod as the same UID and GID (podSecurityContext.runAsUser: 10001).
RUN groupadd --system --gid 10001 baton \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin baton

WORKDIR /app
# The jar the archive was trained with, byte for byte, the archive, and the entrypoint.
COPY --from=class-archive --chown=0:0 /app/baton-operator.jar /app/baton-operator.jsa /app/
COPY --chown=0:0 --chmod=0755 operator/src/main/image/baton-operator /app/baton-operator
# The agent, run as a sidecar from this same image: command ["/app/baton-agent"].
COPY --from=class-archive --chown=0:0 /app/baton-agent.jar /app/baton-agent.jsa /app/
COPY --chown=0:0 --chmod=0755 agent/src/main/image/baton-agent /app/baton-agent

# Container-aware JVM settings: size the heap from the memory limit instead of the node's memory,
# and exit on OutOfMemoryError so that Kubernetes restarts the pod (the standby takes over)
# rather than leaving a half-working process. TieredStopAtLevel=1 compiles with C1 only: the
# optimizing compiler took a core for the whole of a 1,000-group cold start, and the operator's
# work is requests, not computation (docs/design.md, "Cold start"). The heap free ratios keep the
# heap close to its live data: the first listing of a namespace of 30,000 pods otherwise leaves the
# heap 60 MiB larger than it needs (docs/design.md, "A cache the size of what matters"). The
# collector and the initial heap are pinned to what the JVM picks in the chart's 512Mi container
# (Serial, 8 MiB), so that a larger limit, or none, changes nothing: on a 23 GiB node without them
# the JVM picked G1 with a 368 MiB initial heap, and 10,000 unrelated pods cost 231 MiB of RSS
# instead of 36 (docs/design.md, "The heap itself"). The Helm
# value jvmOptions replaces them. The entrypoint passes them to java: JDK_JAVA_OPTIONS would make
# the launcher print a note that is not a JSON log line.
ENV BATON_JVM_OPTIONS="-XX:MaxRAMPercentage=75.0 -Xms8m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -XX:TieredStopAtLevel=1 -XX:MinHeapFreeRatio=20 -XX:MaxHeapFreeRatio=40"

USER 10001:10001
# /metrics, /healthz, /readyz (BATON_HTTP_PORT)
EXPOSE 8080
# The entrypoint names the archive (kept whatever jvmOptions says) when it is a non-empty file.
ENTRYPOINT ["/app/baton-operator"]
