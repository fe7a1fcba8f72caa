#!/usr/bin/env bash
# The SASS of one device translation unit without the GPU machine: its loops and instruction
# counts, for a kernel change checked here before device time is spent on it (where the
# compiler put a copy, how many instructions a K step takes, what a switch moved).
#
#   tools/gpu/local-sass.sh kernels/gpu/matrix_stage1.hip [-DSWITCH ...]
#       per kernel: its instructions and each loop (a backward branch) with its size
#   KERNEL=warpgroup_kernelILi2ELi2ELi256 tools/gpu/local-sass.sh kernels/gpu/matrix_stage1.hip
#       also the SASS of the first kernel whose mangled name contains KERNEL
#
# It compiles the file with build/cuda's flags (tools/gpu/build-cuda.sh first) into an sm_90a
# cubin and disassembles that with nvdisasm. nvcc 13 here ships no disassembler, so nvdisasm
# comes from Debian's non-free nvidia-cuda-toolkit 11.8 (downloaded, not installed: 84 MB; its
# nvdisasm is kept in build/local-sass), which reads CUDA 13's cubins once their ELF header names
# the older ABI (OS/ABI 0x33, ABI version 7, e_flags 0x5a055a: sm_90). CUDA 11.8 predates sm_90a,
# so the warpgroup instructions (QGMMA, HGMMA) are not decoded: they are skipped and show as
# gaps in the addresses ("undecoded" below). The GPU machine's cuobjdump is the
# reference (tools/gpu/device-run.sh sass); this is for looking, not for the record.
set -euo pipefail
cd "$(dirname "$0")/../.."
source_file="${1:?usage: tools/gpu/local-sass.sh SOURCE.hip [-D...]}"
shift
build=build/cuda
[[ -f $build/compile_commands.json ]] || { echo "local-sass: no $build (tools/gpu/build-cuda.sh)" >&2; exit 2; }
[[ -f $source_file ]] || { echo "local-sass: no file $source_file" >&2; exit 2; }
tools=build/local-sass
nvdisasm="$tools/usr/bin/nvdisasm"
if [[ ! -x $nvdisasm ]]; then
    mkdir -p "$tools"
    if ! apt-cache show nvidia-cuda-toolkit >/dev/null 2>&1; then
        echo "local-sass: Debian's non-free component is not in the apt sources; as root:" >&2
        # shellcheck disable=SC2028  # the command is shown as typed, escapes and all
        echo "  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > /etc/apt/sources.list.d/non-free.sources && apt-get update" >&2
        exit 2
    fi
    (cd "$tools" && apt-get download nvidia-cuda-toolkit >/dev/null)  # its errors stay visible
    dpkg-deb -x "$tools"/nvidia-cuda-toolkit_*.deb "$tools/package"
    mkdir -p "$tools/usr/bin"
    mv "$tools/package/usr/bin/nvdisasm" "$nvdisasm"
    rm -rf "$tools/package" "$tools"/nvidia-cuda-toolkit_*.deb
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The file's compile command from the build, as a cubin for sm_90a, with the extra switches.
python3 - "$build/compile_commands.json" "$(realpath "$source_file")" "$work/cubin" "$@" \
    > "$work/compile.sh" <<'PY'
import json, shlex, sys
commands, source, cubin, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
for entry in json.load(open(commands)):
    if entry["file"] == source:
        words = shlex.split(entry["command"])
        out = words.index("-o")
        del words[out:out + 2]
        words = [w for w in words if not w.startswith("--generate-code") and w != "-c"]
        words += ["-arch=sm_90a", "-cubin", "-o", cubin] + extra
        print("cd " + shlex.quote(entry["directory"]) + " && " + shlex.join(words))
        break
else:
    print("local-sass: " + source + " is not in the build's compile commands", file=sys.stderr)
    sys.exit(2)
PY
bash "$work/compile.sh"
python3 - "$work/cubin" "$work/old.cubin" <<'PY'
import struct, sys
elf = bytearray(open(sys.argv[1], "rb").read())
elf[7], elf[8] = 0x33, 7                     # OS/ABI, ABI version of CUDA 11
struct.pack_into("<I", elf, 0x30, 0x5a055a)  # e_flags: sm_90, virtual sm_90
open(sys.argv[2], "wb").write(elf)
PY
"$nvdisasm" -c "$work/old.cubin" > "$work/sass"
python3 - "$work/sass" "${KERNEL:-}" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
wanted = sys.argv[2]
instruction = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(\S.*?)\s*;")
kernels, current = [], None
for line in lines:
    if re.match(r"^_Z\w+:$", line):
        current = {"name": line[:-1], "code": [], "labels": {}}
        kernels.append(current)
    elif current is not None:
        label = re.match(r"^(\.L_x_\d+):$", line)
        if label:
            current["labels"][label.group(1)] = len(current["code"])
        found = instruction.match(line)
        if found:
            current["code"].append((int(found.group(1), 16), found.group(2)))
shown = False
for k in kernels:
    code = k["code"]
    if not code:
        continue
    undecoded = (code[-1][0] - code[0][0]) // 16 + 1 - len(code)
    short = re.sub(r"^_ZN5fhmoe7kernels3gpu\w*?_GLOBAL__N__\w+?_hip_\w{8}", "", k["name"])
    print(f"{short[:100]}  {len(code)} instructions, {undecoded} undecoded")
    for i, (address, text) in enumerate(code):
        branch = re.search(r"BRA `\((\.L_x_\d+)\)", text)
        if branch and branch.group(1) in k["labels"]:
            start = k["labels"][branch.group(1)]
            if start <= i:
                body = code[start:i + 1]
                gaps = (body[-1][0] - body[0][0]) // 16 + 1 - len(body)
                print(f"    loop 0x{code[start][0]:04x}-0x{address:04x}: {len(body)} instructions"
                      f" + {gaps} undecoded")
    if wanted and not shown and wanted in k["name"]:
        shown = True
        print("\n".join(f"        /*{a:04x}*/ {t}" for a, t in code))
PY
