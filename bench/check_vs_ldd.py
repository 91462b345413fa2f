#!/usr/bin/env python3
"""Benchmark: `opkit check` on a typical op against the TF 2.10.1 profile,
beside `ldd -r` on the same library, in the same run.

Both answer "will this load?"; ldd -r does it by really loading the library on
this machine, opkit check statically for a target profile. Prints median wall
time and peak memory (max RSS) of each, and their ratios.

usage: bench/check_vs_ldd.py OPKIT [--runs N] [--lib LIB]
Needs the tensorflow-2.10.1 SDK imported (`opkit sdk add` the 2.10.1 wheel);
without --lib it builds the default template op for 2.10.1 in a temp folder.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def measure(argv, env, runs):
    """Median wall seconds and max peak RSS (KiB) over `runs` runs of argv."""
    walls, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.execvpe(argv[0], argv, env)
        _, status, usage = os.wait4(pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss)
        if os.WEXITSTATUS(status) not in (0, 1):
            sys.exit("benchmark command failed: %s" % " ".join(argv))
    return statistics.median(walls), max(peaks)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("opkit")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lib")
    args = parser.parse_args()
    opkit = os.path.abspath(args.opkit)

    sdks = json.loads(subprocess.check_output([opkit, "sdk", "list", "--json"]))
    sdk = next((s for s in sdks if s["version"] == "2.10.1"), None)
    if sdk is None:
        sys.exit("no tensorflow-2.10.1 SDK imported: run `opkit sdk add` on the 2.10.1 wheel (scripts/fetch-wheels.sh)")

    with tempfile.TemporaryDirectory(prefix="opkit-bench.") as tmp:
        lib = args.lib
        if lib is None:
            subprocess.check_call([opkit, "-q", "new", "bench_op", "--output", tmp + "/bench_op"], stdout=subprocess.DEVNULL)
            subprocess.check_call([opkit, "-q", "-C", tmp + "/bench_op", "build", "--tf", "2.10.1"], stdout=subprocess.DEVNULL)
            lib = tmp + "/bench_op/build/tf-2.10.1/libbench_op.so"
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sdk["path"], "lib"))
        framework = os.path.join(sdk["path"], "lib", sdk["framework_library"])
        figures = []
        for label, library in (("the op library " + os.path.basename(lib), lib),
                               ("the framework library " + sdk["framework_library"], framework)):
            # Alternated, so both see the same load.
            check_walls, ldd_walls, check_rss, ldd_rss = [], [], 0, 0
            for _ in range(args.runs):
                wall, rss = measure([opkit, "check", library, "--tf", "2.10.1"], env, 1)
                check_walls.append(wall)
                check_rss = max(check_rss, rss)
                wall, rss = measure(["ldd", "-r", library], env, 1)
                ldd_walls.append(wall)
                ldd_rss = max(ldd_rss, rss)
            figures.append((label, statistics.median(check_walls), check_rss, statistics.median(ldd_walls), ldd_rss))

    print("%d runs each, alternated, medians" % args.runs)
    print("%-52s %12s %12s %12s %12s %8s" % ("checked", "opkit check", "peak RSS", "ldd -r", "peak RSS", "ratio"))
    for label, cw, cr, lw, lr in figures:
        print("%-52s %9.1f ms %8.1f MiB %9.1f ms %8.1f MiB %7.2fx" % (label, cw * 1e3, cr / 1024, lw * 1e3, lr / 1024,
                                                                    cw / lw))
    _, cw, _, lw, _ = figures[0]
    print("goal: the op library in <= 20 ms and >= 5x faster than ldd -r -> %s" %
          ("met" if cw <= 0.02 and lw / cw >= 5 else "NOT met"))

if __name__ == "__main__":
    main()
