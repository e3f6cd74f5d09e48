#!/bin/sh
# Check baton against the REAL Claude Code and Codex CLIs on a local stand-in model server.
# By hand only (not CI). Usage: tools/real-cli/run.sh [WORKDIR]   (default /tmp/realcli)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
W=${1:-/tmp/realcli}
PORT=${PORT:-18080}
mkdir -p "$W"
cd "$W"
[ -x node_modules/.bin/codex ] ||
  npm install --prefix "$W" @anthropic-ai/claude-code@2.1.332 @openai/codex
[ -x v197/node_modules/.bin/claude ] ||
  { mkdir -p v197 && npm install --prefix "$W/v197" @anthropic-ai/claude-code@2.1.197; }
BATON=${BATON:-$HERE/../../target/debug/baton}
[ -x "$BATON" ] || (cd "$HERE/../.." && cargo build)
C332=$W/node_modules/@anthropic-ai/claude-code/bin/claude.exe
C197=$W/v197/node_modules/@anthropic-ai/claude-code/bin/claude.exe
CODEX=$W/node_modules/.bin/codex
LOG=$W/standin.log.jsonl
python3 "$HERE/standin.py" "$PORT" "$LOG" &
SPID=$!
trap 'kill $SPID' EXIT
sleep 1
for v in 2.1.332 2.1.197; do
  cb=$C332; [ $v = 2.1.197 ] && cb=$C197
  echo "### real CLIs, claude $v"
  python3 "$HERE/drive.py" --baton "$BATON" --mode real --claude-version $v --claude-bin "$cb" \
    --codex-bin "$CODEX" --port "$PORT" --standin-log "$LOG" --out "$W/out-real-$v"
  echo "### shims, claude $v"
  python3 "$HERE/drive.py" --baton "$BATON" --mode shim --claude-version $v --out "$W/out-shim-$v"
  echo "### raw CLI streams, real (A) vs shim (B), claude $v"
  python3 "$HERE/compare.py" "$W/out-real-$v" "$W/out-shim-$v"
done
grep -h FAIL "$W"/out-*/checks.txt && exit 1 || echo "all checks passed"
