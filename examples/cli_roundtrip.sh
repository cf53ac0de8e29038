#!/usr/bin/env bash
# Convert N-Triples to Jelly and back with the `jelly` command, then inspect and validate.
# Run: bash examples/cli_roundtrip.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

jelly convert "$here/data/sensors.nt" "$out/sensors.jelly" --verbose
jelly convert "$out/sensors.jelly" "$out/back.nt"
cmp <(sort "$here/data/sensors.nt") <(sort "$out/back.nt") && echo "round trip: identical"
ls -l "$here/data/sensors.nt" "$out/sensors.jelly" | awk '{print $5, $9}'

# A message log: every '# @message' block becomes one frame, and comes back as one.
jelly convert "$here/data/sensor-messages.nt" "$out/messages.jelly"
jelly inspect "$out/messages.jelly" --summary
jelly convert "$out/messages.jelly" - --to nt --messages --take-frames ..1  # the first message
jelly validate "$out/messages.jelly"
