# milabench in C++ as a container: the original's first route (README.md, docs/docker.md).
#   docker build -t my_docker -f Dockerfile .
#   sudo docker run --cap-add=SYS_ADMIN --security-opt=apparmor:unconfined -it my_docker bash
#   sudo docker run --cap-add=SYS_ADMIN --security-opt=apparmor:unconfined -v DATA:/data -v RESULTS:/results \
#        my_docker milarun jobs profiles/cpu.json
# Two stages on Debian 12. "build": the build packages of scripts/install-deps.sh, then milarun and
# milarun-torch in Release. The image: those two programs, the Debian packages of the shared
# libraries they load (scripts/library-packages.sh, run in the build stage), the programs the
# profiles call (install-deps.sh's "tools"), and profiles/, weights/, baselines/, scripts/ -- no
# compiler, no -dev package, no test. The entry point (scripts/docker-entry.sh) sets up the student
# cgroups when the container may. The GPU image is Dockerfile.gpu.
# Build arguments: BASE (a Debian 12 image), MILABENCH_COMMIT (the commit `milarun --version`
# and every result record; .git is not sent to the build).
ARG BASE=debian:bookworm

FROM ${BASE} AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/
RUN scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
ARG MILABENCH_COMMIT=
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build.log \
    && cmake --build build -j"$(nproc)" --target milarun milarun-torch \
    && scripts/library-packages.sh build/milarun build/milarun-torch > build/library-packages.txt

FROM ${BASE}
WORKDIR /opt/milabench
COPY scripts/install-deps.sh /tmp/install-deps.sh
COPY --from=build /src/build/library-packages.txt /tmp/library-packages.txt
RUN /tmp/install-deps.sh tools \
    && { ls /var/lib/apt/lists/*_Packages > /dev/null 2>&1 || apt-get update -qq; } \
    && DEBIAN_FRONTEND=noninteractive xargs -a /tmp/library-packages.txt \
       apt-get install -y -qq --no-install-recommends \
    && rm -rf /var/lib/apt/lists/* /tmp/install-deps.sh /tmp/library-packages.txt
COPY --from=build /src/build/milarun /src/build/milarun-torch build/
COPY profiles profiles/
COPY weights weights/
COPY baselines baselines/
COPY scripts scripts/
ENV PATH=/opt/milabench/build:$PATH \
    MILARUN_DATAROOT=/data \
    MILARUN_OUTROOT=/results \
    LANG=C.UTF-8
VOLUME ["/data", "/results"]
ENTRYPOINT ["/opt/milabench/scripts/docker-entry.sh"]
CMD ["bash"]
