# syntax=docker/dockerfile:1
#
# stud-service container image.
#
#   docker build -t stud-service:$(git describe --tags --always) .
#
# Two stages: "build" compiles the C core (cffi) and installs the package into a virtualenv;
# "runtime" copies only that virtualenv onto a slim Python, runs as an unprivileged numeric user and
# writes nothing outside /tmp, so it runs with a read-only root filesystem (mount an emptyDir on /tmp).
# No secret is baked in: DATABASE_URL and STUD_PAGE_TOKEN_KEY come from the environment at run time.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/stud-service
WORKDIR /src
COPY . .
# A regular (not editable) install: the C core is compiled here and the .so lands in site-packages.
# pip byte-compiles every module now, because the runtime filesystem is read-only.
RUN /opt/stud-service/bin/pip install --upgrade pip \
 && /opt/stud-service/bin/pip install . \
 && /opt/stud-service/bin/python -c "import stud_service, stud_service.cli"

FROM ${PYTHON_IMAGE} AS runtime
# 10001: an unprivileged uid/gid that matches runAsUser/runAsGroup in k8s/base/deployment.yaml.
RUN groupadd --system --gid 10001 stud \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin stud
COPY --from=build /opt/stud-service /opt/stud-service
ENV PATH=/opt/stud-service/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    STUD_DATA_DIR=/tmp/stud-service \
    STUD_LISTEN=0.0.0.0:50051 \
    STUD_METRICS_LISTEN=0.0.0.0:9090 \
    STUD_WEB_LISTEN=0.0.0.0:8080 \
    STUD_LOG_FORMAT=json
USER 10001:10001
WORKDIR /tmp
# gRPC (with the grpc.health.v1.Health service), the web port, then Prometheus metrics.
EXPOSE 50051 8080 9090
ENTRYPOINT ["stud-service"]
CMD ["serve"]
