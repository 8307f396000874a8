#!/usr/bin/env bash
# Spark (the Spark tests and `ferrochunk chunk --spark`) needs Java 17 or later. Install
# OpenJDK 17 with apt when no such Java is on PATH; fail with the reason when that is not
# possible, rather than letting the Spark tests fail on a missing JVM.
set -euo pipefail
major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1; }
if command -v java >/dev/null && [ "$(major)" -ge 17 ] 2>/dev/null; then
	exit 0
fi
echo "ensure_java: Java 17+ not found; installing openjdk-17-jre-headless with apt" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
	echo "ensure_java: need root or sudo to install Java 17 (Spark's tests need it)" >&2
	exit 1
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q openjdk-17-jre-headless
[ "$(major)" -ge 17 ] || { echo "ensure_java: java is still older than 17" >&2; exit 1; }
