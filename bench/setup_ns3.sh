#!/usr/bin/env bash
# Installs ns-3 (PyPI wheel `ns3`, which ships ns-3's headers and shared libraries) into
# bench/.venv-ns3 and compiles the C++ scenarios in bench/ns3/ against it.
#
#   bash bench/setup_ns3.sh            # venv + pip install (skipped if present) + build
#   bash bench/setup_ns3.sh --build    # rebuild the scenarios only
#
# Binaries go to bench/out/bin/. Nothing here is committed (both dirs are in .gitignore).
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$BENCH/.venv-ns3"
NS3_VERSION="3.44.post0"
PY="${PYTHON:-python3}"

if [[ "${1:-}" != "--build" ]]; then
    if [[ ! -x "$VENV/bin/python" ]]; then
        "$PY" -m venv "$VENV"
    fi
    if ! "$VENV/bin/pip" show ns3 2>/dev/null | grep -q "^Version: $NS3_VERSION\$"; then
        "$VENV/bin/pip" install --quiet "ns3==$NS3_VERSION"
    fi
fi

# Where the wheel put ns-3: <site-packages>/ns3/{include,lib64}.
# (Its pkg-config files and CMake config carry the wheel builder's absolute paths
# (/gcl-builds/...), so they are not usable as they are; we pass the paths ourselves.)
NS3_ROOT="$("$VENV/bin/python" - <<'PY'
import importlib.util, os
spec = importlib.util.find_spec("ns3")
# `ns3` is a plain data dir in the wheel (no __init__), find_spec gives its search path
loc = list(spec.submodule_search_locations)[0]
print(os.path.realpath(loc))
PY
)"
NS3_INC="$NS3_ROOT/include"
NS3_LIB="$NS3_ROOT/lib64"
[[ -f "$NS3_INC/ns3/core-module.h" ]] || { echo "ns-3 headers not found under $NS3_INC" >&2; exit 1; }
[[ -f "$NS3_LIB/libns3.44-core.so" ]] || { echo "libns3.44-core.so not found under $NS3_LIB" >&2; exit 1; }

# Compile definitions taken from the wheel's lib64/cmake/ns3/ns3Targets.cmake
# (INTERFACE_COMPILE_DEFINITIONS): the libraries were built with logging and asserts
# compiled in, so the headers must see the same macros.
DEFS=(-DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE -D__LINUX__)
# --no-as-needed: a program that only looks types up by name (TypeId::LookupByName, Config
# paths) references no symbol of some libraries; the linker would drop them and their TypeIds
# would never register.
LIBS=(-lns3.44-applications -lns3.44-internet -lns3.44-traffic-control -lns3.44-bridge
      -lns3.44-point-to-point -lns3.44-network -lns3.44-core -lpthread)

OUT="$BENCH/out/bin"
mkdir -p "$OUT"
for src in "$BENCH"/ns3/*.cc; do
    name="$(basename "$src" .cc)"
    cmd=(g++ -std=c++20 -O2 "${DEFS[@]}" -I"$NS3_INC" "$src" -o "$OUT/ns3-$name"
         -L"$NS3_LIB" -Wl,-rpath,"$NS3_LIB" -rdynamic -Wl,--no-as-needed "${LIBS[@]}")
    echo "+ ${cmd[*]}"
    "${cmd[@]}"
done
echo "built: $(ls "$OUT" | tr '\n' ' ')"
