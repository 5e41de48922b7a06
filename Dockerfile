# Build stage: the same Maven build as CI, without the tests (CI runs them).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
COPY pom.xml .
RUN mvn -B -q dependency:go-offline
COPY src src
# the plain jar carries the routes too (classpath:liveodds/routes/*.yaml); the runnable reads ./routes below
COPY routes routes
RUN mvn -B -q package -DskipTests

# Runtime: a JRE, the jar, the configuration folder (application.properties, routes/), what the service reads
# (reference/) and what it writes (data/: a volume in production).
FROM eclipse-temurin:17-jre
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
# a fixed numeric user, so that Kubernetes can check runAsNonRoot and the volumes' fsGroup matches
RUN groupadd --system --gid 10001 liveodds \
    && useradd --system --uid 10001 --gid 10001 --home-dir /opt/liveodds --shell /usr/sbin/nologin liveodds
WORKDIR /opt/liveodds
COPY --from=build /build/target/liveodds-push.jar liveodds-push.jar
COPY application.properties ./
COPY routes routes
# the fight mapping and fixtures outside data/, so that a volume on data/ hides neither (mount yours over reference/,
# or point these two settings at your files)
COPY data/fight-mapping.csv data/fixtures.json reference/
ENV LIVEODDS_MAPPING_FILE=/opt/liveodds/reference/fight-mapping.csv \
    LIVEODDS_FIXTURES_FILE=/opt/liveodds/reference/fixtures.json \
    MALLOC_ARENA_MAX=2
# the embedded default's demo card and sandbox booking (only used when no partner setting is given)
COPY data/demo data/demo
COPY data/sandbox/booking-b.template.txt data/sandbox/
RUN mkdir -p data/inbox data/dead-letter && chown -R 10001:10001 /opt/liveodds/data
USER 10001:10001
# 8080: fixtures API (and the HTTP source); 9876: health and metrics
EXPOSE 8080 9876
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD curl -fsS http://127.0.0.1:9876/observe/health/live || exit 1
# SIGTERM stops intake and lets in-flight pushes finish (see docs/operations.md, Shutdown and crashes)
STOPSIGNAL SIGTERM
# the JVM options of the jar's default launch (DefaultJvm.OPTIONS and, above, its MALLOC_ARENA_MAX, measured by the
# bench): given here, the JVM runs the service itself as PID 1, so SIGTERM reaches it directly; out of memory it exits
# at once (status 3) and the container ends, for its restart policy (or Kubernetes) to start it again
ENTRYPOINT ["java", "-Xms192m", "-Xmx384m", "-Xmn96m", "-XX:+UseSerialGC", "-XX:MaxHeapFreeRatio=30", "-XX:MinHeapFreeRatio=10", \
            "-Xss512k", "-XX:+ExitOnOutOfMemoryError", "-jar", "liveodds-push.jar"]
