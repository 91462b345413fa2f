"""A console block of README.md, run as written (docs_quick_start.sh, docs_install.sh).

extract README MARKER SCRIPT EXPECTED MIN_COMMANDS: the block between
<!-- MARKER --> and <!-- /MARKER -->; its `$ ` lines are the commands (`> `
lines continue one, as bash's PS2 shows them), written to SCRIPT for one bash
(`set -e`, pipefail); the other lines are what they print, written to EXPECTED.

compare EXPECTED OUT ERR: each output line shown, `…` standing for anything,
must be a line the run printed (OUT or ERR), except lines naming the reader's
own paths (`/home/me`) and the `…`-only lines.
"""
import re
import sys


def extract(readme, marker, script, expected_file, min_commands):
    text = open(readme, encoding="utf-8").read()
    match = re.search(r"<!-- %s -->\n```console\n(.*?)\n```\n<!-- /%s -->" % (marker, marker), text, re.S)
    if not match:
        sys.exit("README.md has no <!-- %s --> console block" % marker)
    commands, expected = [], []
    for line in match.group(1).split("\n"):
        if line.startswith("$ "):
            commands.append(line[2:])
        elif line.startswith("> ") or line == ">":
            commands.append(line[2:])
        else:
            expected.append(line)
    if len(commands) < int(min_commands):
        sys.exit("the %s block has %d command lines" % (marker, len(commands)))
    open(script, "w").write("set -euo pipefail -x\n" + "\n".join(commands) + "\n")
    open(expected_file, "w").write("\n".join(expected) + "\n")


def compare(expected_file, out, err, min_compared):
    shown = open(expected_file, encoding="utf-8").read().split("\n")
    printed = set(open(out, encoding="utf-8").read().split("\n") + open(err, encoding="utf-8").read().split("\n"))
    missing, compared = [], 0
    for line in shown:
        if not line.strip() or not line.replace("…", "").strip() or "/home/me" in line:
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in line.split("…")))
        compared += 1
        if not any(pattern.fullmatch(p) for p in printed):
            missing.append(line)
    for line in missing:
        print("NOT PRINTED: " + line, file=sys.stderr)
    print("%d shown output lines compared, %d not printed" % (compared, len(missing)))
    sys.exit(1 if missing or compared < int(min_compared) else 0)


if __name__ == "__main__":
    {"extract": extract, "compare": compare}[sys.argv[1]](*sys.argv[2:])
