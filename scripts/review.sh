#!/usr/bin/env bash
# `make review`: the main job. Starts libvirtd (no systemd here), then
# `lab review`: both kernels and the image (cached), the suite on fresh
# guests of the default topology on baseline and then on patched, and the
# report (text on the terminal, report.json and report.html on disk).
set -euo pipefail
cd "$(dirname "$0")/.."
export LAB_SRC=$PWD
scripts/start-libvirtd.sh
./lab down >/dev/null 2>&1 || true
exec ./lab review -t "${LAB_TOPOLOGY:-default}"
