#!/usr/bin/env bash
# System packages the test suite needs on a clean Debian machine: Chromium for the e2e suite
# (driven by playwright-core, which downloads no browser of its own). Installed only when missing.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y chromium
fi
