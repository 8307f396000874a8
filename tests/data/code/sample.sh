#!/bin/sh
# A small script, for the Code tests.
set -eu

log() {
  echo "$(date) $*" >&2
}

function build {
  log "building"
  for f in src/*.c; do
    cc -c "$f"
  done
}

build
