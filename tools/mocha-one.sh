#!/usr/bin/env bash
# Runs the given test files only (the workspace's .mocharc.json lists every suite).
exec npx mocha --no-config --node-option import=tsx --extension ts --timeout 20000 --exit "$@"
