#!/usr/bin/env bash
# Runs the given test files only (the workspace's .mocharc.json lists every suite), on the workspace's Node:
# mocha's bin runs on node_modules/.bin/node, whatever `node` the PATH holds (ADR 0017).
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/node_modules/.bin/mocha" --no-config --node-option import=tsx --extension ts --timeout 20000 --exit "$@"
