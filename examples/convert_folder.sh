#!/usr/bin/env bash
# Convert every recorded run in a folder with the command line, then check the streams.
#
# Usage: bash examples/convert_folder.sh [FOLDER] [OUT.jsonl]
# Without arguments it converts examples/runs. Each log becomes one line of OUT.jsonl (an
# OpenAI-style transcript, every tool call before its result); a LOG.input.json beside a
# log is read as its run inputs. The summary goes to stderr. Set AGUI_TRANSCRIPTS to run
# another command than the installed `agui-transcripts` (for example "python -m
# agui_transcripts").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
folder="${1:-$here/runs}"
out="${2:-$(mktemp -d)/transcripts.jsonl}"
read -r -a cli <<< "${AGUI_TRANSCRIPTS:-agui-transcripts}"

"${cli[@]}" convert "$folder" --to openai --ordered -o "$out"
"${cli[@]}" check "$folder"
echo "wrote $(wc -l < "$out") transcripts to $out"
