# A kept no-op, or "up to date", is never a stale library: random edits of
# what decides a build (a source, a header, opkit.yaml, the compilers' search
# variables in the environment, another compiler first on PATH, the SDK store)
# each followed by `opkit build`, whose library is compared byte for byte with
# a clean build's of the same state (a fresh copy of the project at the same
# depth, so its relative source paths match; each state built once). Every
# few rounds the same call runs again after the racily-clean second, so that
# a kept no-op is made, and the next edit must defeat it.
# OPKIT_NOOP_ROUNDS rounds (30 in the quick tier, 300 in the full one:
# build_noop_random_full.sh), OPKIT_NOOP_SEED for another sequence.
source "$(dirname "$0")/common.sh"
rounds=${OPKIT_NOOP_ROUNDS:-30}
seed=${OPKIT_NOOP_SEED:-4545}
# Its own store: the test re-imports its SDK, which must not disturb the shared one.
export OPKIT_HOME="$work/home"

# Two forms of the TF 1.12.0 SDK as pip lays it out in site-packages (sdk add
# takes such a folder): as released, and with one header changed (RECORD too).
python3 - "$(wheel_for 1.12.0)" "$work/site" <<'PY' || fail "could not lay out the TF 1.12.0 wheel"
import base64, hashlib, os, re, shutil, sys, zipfile
wheel, site = sys.argv[1:]
installed = lambda name: re.sub(r"^[^/]+\.data/(purelib|platlib)/", "", name)  # as pip installs it
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        path = installed(name)
        if (path.startswith("tensorflow/include/") or path.startswith("tensorflow/libtensorflow_framework")
                or ".dist-info/" in path or path.endswith("platform/build_info.py")):
            target = os.path.join(site + "-a", path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(name) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    (record,) = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]
    lines = [installed(l) for l in z.read(record).decode().splitlines()]
    open(os.path.join(site + "-a", record), "w").write("\n".join(lines) + "\n")
shutil.copytree(site + "-a", site + "-b", symlinks=True)
header = "tensorflow/include/tensorflow/core/framework/op.h"
path = os.path.join(site + "-b", header)
with open(path, "ab") as f:
    f.write(b"\n#define RND_SDK 1\n")
data = open(path, "rb").read()
digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
(record,) = [os.path.join(root, "RECORD") for root, _, files in os.walk(site + "-b") if "RECORD" in files
             and root.endswith(".dist-info")]
lines = open(record).read().splitlines()
lines = [f"{header},sha256={digest},{len(data)}" if l.split(",")[0] == header else l for l in lines]
open(record, "w").write("\n".join(lines) + "\n")
PY
run_opkit 0 sdk add "$work/site-a/tensorflow"

# The project: the template's op, and a source whose bytes say every knob.
run_opkit 0 new rnd --tf 1.12
cd rnd
printf '#define RND_HEADER 0\n' >src/rnd_extra.h
cat >src/rnd_knobs.cc <<'CC'
#include "tensorflow/core/framework/op.h"
#if __has_include(<rnd_cpath.h>)
#include <rnd_cpath.h>
#endif
#include "rnd_extra.h"
#define RND_SOURCE 0
#ifndef RND_CPATH
#define RND_CPATH 0
#endif
#ifndef RND_DEFINE
#define RND_DEFINE 0
#endif
#ifndef RND_WRAPPED
#define RND_WRAPPED 0
#endif
#ifndef RND_SDK
#define RND_SDK 0
#endif
#define RND_STR2(x) #x
#define RND_STR(x) RND_STR2(x)
extern "C" __attribute__((visibility("default"), used)) const char rnd_state[] =
  "RND_STATE:" RND_STR(RND_SOURCE) RND_STR(RND_HEADER) RND_STR(RND_DEFINE) RND_STR(RND_CPATH) RND_STR(RND_WRAPPED)
    RND_STR(RND_SDK) ":END";
CC
sed -i 's/^  - src\/rnd_kernels\.cc$/&\n  - src\/rnd_knobs.cc/' opkit.yaml
grep -q 'src/rnd_knobs.cc' opkit.yaml || fail "the test's edit of opkit.yaml did not apply"
mkdir -p "$work/cpath-a" "$work/cpath-b" "$work/wrap"
printf '#define RND_CPATH 1\n' >"$work/cpath-a/rnd_cpath.h"
printf '#define RND_CPATH 2\n' >"$work/cpath-b/rnd_cpath.h"
printf '#!/bin/sh\nexec %s -DRND_WRAPPED=1 "$@"\n' "$(command -v g++)" >"$work/wrap/g++"
chmod +x "$work/wrap/g++"

python3 - "$OPKIT" "$work" "$rounds" "$seed" <<'PY' || fail "a build was not what a clean build makes (above)"
import os, random, shutil, subprocess, sys, time

opkit, work, rounds, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
project = os.path.join(work, "rnd")
library = "build/tf-1.12.0/librnd.so"
rng = random.Random(seed)
# The knobs: each takes one of its values; (name, values, weight).
knobs = [("source", [0, 1, 2], 6), ("header", [0, 1], 6), ("yaml", [0, 1], 5),
         ("env", ["", "CPATH", "CPLUS_INCLUDE_PATH"], 5), ("compiler", [0, 1], 4), ("sdk", ["a", "b"], 1)]
state = {"source": 0, "header": 0, "yaml": 0, "env": "", "compiler": 0, "sdk": "a"}
base_env = dict(os.environ)
yaml_plain = open(os.path.join(project, "opkit.yaml")).read()

def environment():
    env = dict(base_env)
    if state["env"] == "CPATH":
        env["CPATH"] = os.path.join(work, "cpath-a")
    elif state["env"] == "CPLUS_INCLUDE_PATH":
        env["CPLUS_INCLUDE_PATH"] = os.path.join(work, "cpath-b")
    if state["compiler"]:
        env["PATH"] = os.path.join(work, "wrap") + ":" + env["PATH"]
    return env

def run(args, cwd, what):
    result = subprocess.run([opkit] + args, cwd=cwd, env=environment(), capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{what}: opkit {' '.join(args)} exited {result.returncode}\n{result.stdout}{result.stderr}")
    return result

def write(path, text):
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)  # as an editor or a checkout replaces a file

def apply(name, value):
    state[name] = value
    src = os.path.join(project, "src")
    if name == "source":
        text = open(os.path.join(src, "rnd_knobs.cc")).read().splitlines(True)
        text = [f"#define RND_SOURCE {value}\n" if l.startswith("#define RND_SOURCE ") else l for l in text]
        write(os.path.join(src, "rnd_knobs.cc"), "".join(text))
    elif name == "header":
        write(os.path.join(src, "rnd_extra.h"), f"#define RND_HEADER {value}\n")
    elif name == "yaml":
        text = yaml_plain.replace("targets:\n", 'build:\n  defines: ["RND_DEFINE=1"]\ntargets:\n', 1) if value else yaml_plain
        write(os.path.join(project, "opkit.yaml"), text)
    elif name == "sdk":
        run(["sdk", "add", os.path.join(work, f"site-{value}", "tensorflow")], work, "re-importing the SDK")

def expected():
    return "RND_STATE:{}{}{}0{}{}:END".format(state["source"], state["header"], state["yaml"], state["compiler"],
                                               1 if state["sdk"] == "b" else 0).encode()

memo = {}
def clean_build():
    key = tuple(sorted(state.items()))
    if key not in memo:
        ref = os.path.join(work, "ref", "rnd")  # at the project's depth: the same relative source paths
        shutil.rmtree(os.path.dirname(ref), ignore_errors=True)
        shutil.copytree(project, ref, ignore=shutil.ignore_patterns("build"))
        run(["build", "--tf", "1.12", "--no-check"], ref, "the clean build")
        memo[key] = open(os.path.join(ref, library), "rb").read()
    return memo[key]

def build_and_compare(round, what):
    run(["build", "--tf", "1.12", "--no-check"], project, f"round {round}")
    got = open(os.path.join(project, library), "rb").read()
    if expected() not in got:
        sys.exit(f"round {round} ({what}, state {state}): the library does not say {expected().decode()}")
    if got != clean_build():
        sys.exit(f"round {round} ({what}, state {state}): the library differs from a clean build's")

start = time.monotonic()
run(["build", "--tf", "1.12", "--no-check"], project, "the first build")
kept = 0
for round in range(1, rounds + 1):
    # The first rounds change each knob once; then at random, by weight.
    if round <= len(knobs):
        name, values, _ = knobs[round - 1]
    else:
        name, values, _ = rng.choices(knobs, weights=[k[2] for k in knobs])[0]
    value = rng.choice([v for v in values if v != state[name]])
    apply(name, value)
    build_and_compare(round, f"{name} = {value!r}")
    if round % 5 == 0:  # the same call once nothing changed for a second: a kept no-op, for the next edit to defeat
        time.sleep(1.1)
        build_and_compare(round, "no edit")
        kept += any(f.endswith(".json") for f in os.listdir(os.path.join(project, "build", ".opkit-noop")))
print(f"{rounds} rounds (seed {seed}), {len(memo)} states built clean, kept no-ops in {kept} of {rounds // 5} "
      f"checks, {time.monotonic() - start:.0f} s: every library equals a clean build's", file=sys.stderr)
if rounds >= 5 and kept == 0:
    sys.exit("no no-op was ever kept: the test did not exercise the kept no-op")
PY
