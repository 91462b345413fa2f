"""Shared pieces of opkit's build benchmarks: alternated timed runs, the
template project they build, and the hand-written g++ recipe they compare with.

Every benchmark runs opkit and its alternative in the same go, alternating them
so both see the same machine load, and prints medians and ratios. None asserts
a time: CTest runs them briefly only to prove they still produce figures.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

VERSIONS = ["1.12.0", "2.10.1"]


def start(default_runs):
    """Parses `OPKIT [--runs N]` and returns (args, opkit path, the SDKs of VERSIONS)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("opkit")
    parser.add_argument("--runs", type=int, default=default_runs)
    args = parser.parse_args()
    opkit = os.path.abspath(args.opkit)
    return args, opkit, sdks(opkit)


def built_project(opkit, parent):
    """A new template project, built once for VERSIONS (which makes the SDKs' PCHs)."""
    project = new_project(opkit, parent)
    opkit_build(opkit, project)
    return project


def run_quiet(argv, **kwargs):
    """Runs argv, failing the benchmark with its output when it fails."""
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("benchmark step failed (exit %d): %s\n%s" % (result.returncode, " ".join(argv), result.stdout[-3000:]))
    return result.stdout


def timed(step):
    """Seconds one call of step() takes."""
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def alternate(runs, steps, prepare=None):
    """Runs each named step once per round, in turn, for `runs` rounds
    (prepare(name) before each, untimed). Returns {name: median seconds}."""
    times = {name: [] for name in steps}
    for _ in range(runs):
        for name, step in steps.items():
            if prepare is not None:
                prepare(name)
            times[name].append(timed(step))
    return {name: statistics.median(values) for name, values in times.items()}


def sdks(opkit):
    """The imported SDKs of VERSIONS, by version; exits naming the install step when one is missing."""
    listed = {s["version"]: s for s in json.loads(run_quiet([opkit, "sdk", "list", "--json"]))}
    missing = [v for v in VERSIONS if v not in listed]
    if missing:
        sys.exit("no SDK imported for %s: run `opkit sdk add` on the official wheels "
                 "(scripts/fetch-wheels.sh downloads them)" % ", ".join(missing))
    return [listed[v] for v in VERSIONS]


def new_project(opkit, parent, name="bench_op"):
    """A fresh `opkit new` project (the default template: op, kernels, compat shim)."""
    root = os.path.join(parent, name)
    run_quiet([opkit, "-q", "new", name, "--output", root, "--tf", ",".join(VERSIONS)])
    return root


def opkit_build(opkit, project, *flags):
    """opkit build for VERSIONS, without ccache (a cache hit would stand in for the compile measured)."""
    return run_quiet([opkit, "-q", "-C", project, "build", "--no-cache", "--tf", ",".join(VERSIONS)] + list(flags))


def recipe_commands(project, sdk_list, out_dir):
    """The hand recipe of tensorflow/custom-op's README, one g++ per version:
    every source and the link in one command, with that version's flags."""
    sources = sorted(os.path.join(project, "src", f) for f in os.listdir(os.path.join(project, "src"))
                     if f.endswith(".cc") and not f.endswith(".cu.cc"))
    commands = []
    for sdk in sdk_list:
        link = "-ltensorflow_framework" if sdk["soname"] == "libtensorflow_framework.so" else "-l:" + sdk["soname"]
        commands.append(["g++", "-std=c++%d" % sdk["cxx_standard"], "-shared", "-fPIC", "-O2",
                         "-D_GLIBCXX_USE_CXX11_ABI=%d" % sdk["cxx11_abi"], "-DEIGEN_MAX_ALIGN_BYTES=64",
                         "-I" + os.path.join(sdk["path"], "include")] + sources +
                        ["-o", os.path.join(out_dir, "recipe-%s.so" % sdk["version"]),
                         "-L" + os.path.join(sdk["path"], "lib"), link])
    return commands


def run_sequential(commands):
    for argv in commands:
        run_quiet(argv)


def run_parallel(commands):
    procs = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT) for argv in commands]
    codes = [p.wait() for p in procs]
    if any(codes):
        sys.exit("recipe failed: %s" % codes)


def print_figures(title, figures, baseline, goals=()):
    """figures: [(label, seconds)], compared with figures' `baseline` label.
    goals: [(label, max ratio to baseline, or None; max seconds, or None)]."""
    print(title)
    base = dict(figures)[baseline]
    for label, seconds in figures:
        print("  %-48s %9.3f s   %6.2fx %s" % (label, seconds, seconds / base, "(baseline)" if label == baseline else ""))
    for label, max_ratio, max_seconds in goals:
        seconds = dict(figures)[label]
        met = (max_ratio is None or seconds / base <= max_ratio) and (max_seconds is None or seconds <= max_seconds)
        wanted = []
        if max_ratio is not None:
            wanted.append("<= %.2fx %s" % (max_ratio, baseline))
        if max_seconds is not None:
            wanted.append("<= %.0f ms" % (max_seconds * 1e3))
        print("  goal: %s %s -> %s" % (label, " and ".join(wanted), "met" if met else "NOT met"))


class Workspace:
    """A temporary folder for one benchmark, removed at the end."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="opkit-bench.")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
