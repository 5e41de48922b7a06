# Build stage: the same Maven build as CI, without the tests (CI runs them).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
COPY pom.xml .
RUN mvn -B -q dependency:go-offline
COPY src src
# the plain jar carries the routes too (classpath:liveodds/routes/*.yaml); the runnable reads ./routes below
COPY routes routes
RUN mvn -B -q package -DskipTests

# Runtime: a JRE, the jar, and the configuration folder (application.properties, routes/, data/).
FROM eclipse-temurin:17-jre
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
RUN useradd --system --home-dir /opt/liveodds --shell /usr/sbin/nologin liveodds
WORKDIR /opt/liveodds
COPY --from=build /build/target/liveodds-push.jar liveodds-push.jar
COPY application.properties ./
COPY routes routes
COPY data/fight-mapping.csv data/fixtures.json data/
COPY data/demo data/demo
COPY data/sandbox data/sandbox
RUN mkdir -p data/inbox data/dead-letter && chown -R liveodds:liveodds /opt/liveodds
USER liveodds
# 8080: fixtures API (and the HTTP source); 9876: health and metrics
EXPOSE 8080 9876
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD curl -fsS http://127.0.0.1:9876/observe/health/live || exit 1
# SIGTERM stops intake and lets in-flight pushes finish (see docs/operations.md, Shutdown and crashes)
STOPSIGNAL SIGTERM
# the JVM options of the jar's default launch (DefaultJvm.OPTIONS, measured by the bench): given here, the JVM runs
# the service itself as PID 1, so SIGTERM reaches it directly; out of memory it exits at once (status 3) and the
# container ends, for its restart policy (or Kubernetes) to start it again
ENTRYPOINT ["java", "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxHeapFreeRatio=30", "-XX:MinHeapFreeRatio=10", \
            "-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:+ExitOnOutOfMemoryError", "-jar", "liveodds-push.jar"]
