# One image for every tpot-stream service: simulator, producer, aggregator, sink.
# Build: docker build -t tpot-stream .
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY common common
COPY broker broker
COPY testkit testkit
COPY simulator simulator
COPY producer producer
COPY proxy proxy
COPY aggregator aggregator
COPY sink sink
COPY app app
RUN ./mvnw -B -q -ntp -DskipTests -Dspotless.check.skip=true -pl app -am package

FROM eclipse-temurin:17-jre
# fontconfig and a font: JFreeChart draws text for the PNG charts; curl for health checks.
RUN apt-get update \
 && apt-get install -y --no-install-recommends fontconfig fonts-dejavu-core curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/tpot
COPY --from=build /src/app/target/tpot.jar tpot.jar
COPY --from=build /src/app/target/lib lib
ENV JAVA_TOOL_OPTIONS="-Djava.awt.headless=true"
ENTRYPOINT ["java", "-jar", "/opt/tpot/tpot.jar"]
CMD ["--help"]
