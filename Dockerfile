ARG BUILD_FROM=ghcr.io/home-assistant/amd64-base-python:3.13-alpine3.21
FROM ${BUILD_FROM}

# Supervisor passes these when it builds the add-on on the device.
ARG BUILD_ARCH
ARG BUILD_VERSION

WORKDIR /usr/src/app

# Pinned runtime dependencies first, in their own layer, so a code change does not
# reinstall them.
COPY requirements.txt requirements-intents.txt ./
RUN pip3 install --no-cache-dir --requirement requirements.txt
# Home Assistant 2025.4's own sentences (home-assistant-intents 2025.3.28), unchanged from the
# registry and pinned by hash, beside the interpreter where the local path reads them: the
# newer pinned package owns the import name in site-packages.
RUN pip3 install --no-cache-dir --no-deps --require-hashes \
        --target "$(python3 -c 'import sys; print(sys.prefix)')/share/home-agent/home-assistant-intents-2025.3.28" \
        --requirement requirements-intents.txt

COPY addon ./addon
COPY webui ./webui
# Front-end packages the panel serves unchanged (CodeMirror), from the npm registry, pinned by
# version and integrity in webui/package-lock.json; Node.js only for this step.
COPY scripts/webui-vendor.sh ./scripts/
RUN apk add --no-cache --virtual .webui-build bash nodejs npm \
    && bash scripts/webui-vendor.sh \
    && apk del .webui-build \
    && rm -rf scripts /root/.npm
# Compiled once here rather than at every start on a slow SD card.
RUN python3 -m compileall -q addon

# s6-overlay services and scripts.
COPY rootfs /

# `python3 -m addon` is run by the s6 service and by Supervisor's backup_pre command, neither
# of which starts in WORKDIR. numpy's OpenBLAS stays on one thread: memory recall's one
# matrix-vector product is ten times slower when its threads fight the event loop for 2 cores.
ENV PYTHONPATH=/usr/src/app \
    PYTHONUNBUFFERED=1 \
    OPENBLAS_NUM_THREADS=1

HEALTHCHECK --interval=30s --timeout=10s --start-period=2m --retries=3 \
    CMD curl --fail --silent --show-error --max-time 5 \
        --output /dev/null http://127.0.0.1:8099/health || exit 1

LABEL \
    io.hass.name="Home Agent" \
    io.hass.description="LLM voice and chat agent for Home Assistant" \
    io.hass.type="addon" \
    io.hass.arch="${BUILD_ARCH}" \
    io.hass.version="${BUILD_VERSION}"
