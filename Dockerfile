# One image for every tpot-stream service: simulator, producer, aggregator, sink.
# Build: docker build -t tpot-stream .     (or docker compose up --build: the whole pipeline)
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
# Every module of the root pom, as the reactor needs them all (DockerfileTest fails when one is
# missing here); each module's tests are left out by .dockerignore.
COPY common common
COPY broker broker
COPY testkit testkit
COPY simulator simulator
COPY producer producer
COPY proxy proxy
COPY aggregator aggregator
COPY sink sink
COPY bench bench
COPY app app
# The whole reactor, so the image build compiles every module as CI does; the image carries the app.
RUN ./mvnw -B -q -ntp -DskipTests -Dspotless.check.skip=true package

FROM eclipse-temurin:17-jre
# fontconfig and a font: JFreeChart draws text for the PNG charts; curl for health checks.
# A system user owns /out, where the sink writes its CSV (a named volume copies that ownership).
RUN apt-get update \
 && apt-get install -y --no-install-recommends fontconfig fonts-dejavu-core curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 tpot \
 && useradd --system --uid 10001 --gid tpot --home-dir /opt/tpot --shell /usr/sbin/nologin tpot \
 && mkdir -p /out \
 && chown tpot:tpot /out
WORKDIR /opt/tpot
COPY --from=build /src/app/target/tpot.jar tpot.jar
COPY --from=build /src/app/target/lib lib
USER 10001:10001
ENV JAVA_TOOL_OPTIONS="-Djava.awt.headless=true"
# JVM settings of the producer (docs/producer.md, "JVM settings"); kept in step with ProducerJvm.OPTIONS
ENTRYPOINT ["java", "-XX:+UseZGC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch", "-XX:+PerfDisableSharedMem", "-jar", "/opt/tpot/tpot.jar"]
CMD ["--help"]
