#!/usr/bin/env bash
# Every program answers --version with one line "NAME VERSION (gpu backend B)" on stdout and
# exit 0, and refuses an unknown flag with exit 2 and a message naming it on stderr (nothing on
# stdout): a user's typo is never taken as a request.
#   check_program_cli.sh PROGRAM NAME
set -u
program=$1
name=$2
fail() { echo "FAIL: $name: $*" >&2; exit 1; }

out=$("$program" --version 2>/tmp/check_program_cli.$$.err); code=$?
err=$(cat /tmp/check_program_cli.$$.err); rm -f /tmp/check_program_cli.$$.err
[ "$code" -eq 0 ] || fail "--version exited $code: $err"
[[ "$out" =~ ^$name\ [0-9]+\.[0-9]+\.[0-9]+(\+g[0-9a-f]+)?\ \(gpu\ backend\ (NONE|CUDA|HIP)\)$ ]] ||
    fail "--version printed '$out'"

out=$("$program" --no-such-flag 2>/tmp/check_program_cli.$$.err); code=$?
err=$(cat /tmp/check_program_cli.$$.err); rm -f /tmp/check_program_cli.$$.err
[ "$code" -eq 2 ] || fail "--no-such-flag exited $code (expected 2): $err"
[[ "$err" == *no-such-flag* ]] || fail "--no-such-flag: the message does not name it: $err"
[ -z "$out" ] || fail "--no-such-flag printed on stdout: $out"
echo "ok: $name: $out"
