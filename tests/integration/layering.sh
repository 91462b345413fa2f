#!/usr/bin/env bash
# The layers of src/opkit (ARCHITECTURE.md): a folder includes only folders of
# lower layers, so no arrow runs back up; and each third-party library is
# included from one folder only, behind opkit's own types.
source "$(dirname "$0")/common.sh"
python3 - "$OPKIT_SOURCE_DIR/src/opkit" <<'PY' || fail "the layering is broken"
import os, re, sys

root = sys.argv[1]
# Lowest first. elf/ sits below sdk/ and check/: both read libraries.
layers = {
    "util": 0,
    "elf": 1, "project": 1,
    "settings": 2, "scaffold": 2,
    "sdk": 3,
    "adopt": 4, "check": 4,
    "cpu": 5,
    "builder": 6,
    "package": 7, "probe": 7,
    "cli": 8,
}
# Header prefix -> the one folder that may include it. fmt is the exception:
# the formatting vocabulary every folder speaks (opkit_core's public dependency).
owners = {
    "CLI/": "cli", "yaml-cpp/": "project", "libelf.h": "elf", "gelf.h": "elf",
    "Zydis/": "cpu", "kainjow/": "scaffold", "archive.h": "util",
    "archive_entry.h": "util", "curl/": "util", "openssl/": "util",
    "libxml/": "util", "ini.h": "util", "nlohmann/": "util",
}

problems = []
folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
for folder in folders:
    if folder not in layers:
        problems.append(f"{folder}/: no layer (add it to tests/integration/layering.sh and ARCHITECTURE.md)")
        continue
    for name in sorted(os.listdir(os.path.join(root, folder))):
        path = os.path.join(root, folder, name)
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            own = re.match(r'#include "opkit/([a-z_]+)/', line)
            if own and own.group(1) != folder and layers.get(own.group(1), 99) >= layers[folder]:
                problems.append(f"src/opkit/{folder}/{name}:{number}: {folder}/ (layer {layers[folder]}) "
                                f"includes {own.group(1)}/ (layer {layers.get(own.group(1), '?')})")
            system = re.match(r"#include <([^>]+)>", line)
            if system:
                for prefix, owner in owners.items():
                    if system.group(1).startswith(prefix) and folder != owner:
                        problems.append(f"src/opkit/{folder}/{name}:{number}: includes <{system.group(1)}>, "
                                        f"which only {owner}/ may use")
print("\n".join(problems) if problems else f"{len(folders)} folders, every include downward")
sys.exit(1 if problems else 0)
PY
