# One image for every tpot-stream service: simulator, producer, aggregator, sink.
# Build: docker build -t tpot-stream .     (or docker compose up --build: the whole pipeline)
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml tpot ./
# each command's JVM options: the launcher reads them, and the common module packs them for tpot run
COPY jvm jvm
# Every module of the root pom, as the reactor needs them all (DeployConfigTest fails when one is
# missing here); each module's tests are left out by .dockerignore.
COPY common common
COPY archive archive
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
# laid out as in the repository, so that the launcher runs the jar it finds (it builds nothing here)
COPY --from=build /src/tpot tpot
COPY --from=build /src/jvm jvm
COPY --from=build /src/app/target/tpot.jar app/target/tpot.jar
COPY --from=build /src/app/target/lib app/target/lib
USER 10001:10001
# The launcher gives each command the JVM options of jvm/<command>.options, as ./tpot does outside the
# image (TPOT_HEAP_OPTS, TPOT_JVM_PERFORMANCE_OPTS and TPOT_JAVA_OPTS override them).
ENTRYPOINT ["/opt/tpot/tpot"]
CMD ["--help"]
