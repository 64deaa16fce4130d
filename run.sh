#!/usr/bin/env bash
# ./run.sh [FLAGS]    train (flags/default.flags, then your flags on top)
# ./run.sh test       run the whole test suite (or: ./run.sh test tests/test_x.py)
# ./run.sh bench      run the side-by-side benchmark
# Creates .venv on first use: CPU TensorFlow, or the GPU build when
# nvidia-smi sees a GPU. Reinstalls when setup.py changes.
set -euo pipefail
cd "$(dirname "$0")"
VENV=.venv
PY="$VENV/bin/python"

ensure_venv() {
  local extra=cpu
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    extra=gpu
  fi
  local stamp="$VENV/.installed-$extra-$(sha1sum setup.py | cut -c1-12)"
  [ -f "$stamp" ] && return 0
  echo "run.sh: setting up $VENV (tensorflow $extra build)..." >&2
  [ -x "$PY" ] || python3 -m venv "$VENV"
  "$PY" -m pip install --quiet --disable-pip-version-check -e ".[$extra,test]" >&2
  rm -f "$VENV"/.installed-*
  touch "$stamp"
}

ensure_venv
case "${1:-}" in
  test)
    shift
    # ./run.sh test: the whole suite; ./run.sh test tests/test_x.py [-k ...]: those only.
    if [ $# -gt 0 ] && [ -e "${1%%::*}" ]; then
      exec "$PY" -m pytest -q "$@"
    fi
    # The whole suite runs in one pytest worker per core (at most 4), each
    # file in one worker: half its time is spent waiting on subprocesses
    # (clusters, CLI runs), which a second worker fills (15:11 -> 11:28 here).
    workers=$(nproc)
    [ "$workers" -gt 4 ] && workers=4
    if [ "$workers" -gt 1 ]; then
      exec "$PY" -m pytest -q -n "$workers" --dist loadfile tests "$@"
    fi
    exec "$PY" -m pytest -q tests "$@"
    ;;
  bench)
    shift
    exec "$PY" -m tf1_train.bench "$@"
    ;;
  *)
    exec "$PY" -m tf1_train.main --flagfile=flags/default.flags "$@"
    ;;
esac
