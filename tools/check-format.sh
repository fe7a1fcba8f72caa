#!/usr/bin/env bash
# Fails when a C++ file of the project is not formatted per .clang-format; prints the
# offending files. Checks only tracked and untracked-not-ignored files (never build trees).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed" >&2; exit 1; }
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  '*.cpp' '*.hpp' '*.h' '*.cu' '*.hip' 2>/dev/null | while read -r f; do [ -f "$f" ] && echo "$f"; done)
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) need clang-format -i:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
