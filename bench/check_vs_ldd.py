#!/usr/bin/env python3
"""Benchmark: `opkit check` against `ldd -r`, on an op library and on
libtensorflow_framework.so.2 itself, and opkit's own start (`opkit --version`)
against /bin/true's, in the same run.

Both answer "will this load?"; ldd -r does it by really loading the library on
this machine, opkit check statically for a target profile (TF 2.10.1's SDK, its
default runtime). The four commands run alternated, --runs times each; the
figures are medians of wall time and of peak memory (max RSS), and their
ratios. Each run is timed by a small C program (compiled here with cc) that
forks, execs and waits: timing from Python would add its own fork, and a child
forked from Python starts with Python's memory counted in its max RSS.

opkit runs from a copy in the bench's temp folder, as `cmake --install` or
dpkg would put it: a binary fresh from the linker sits in the page cache in
4 KiB pages, one copy written in one go in large ones, and every page fault of
the start maps one or the other (here the linker's file starts 0.15 ms slower
and checks 0.3 ms slower, the same bytes). LD_LIBRARY_PATH (the SDK's lib/, so
that ldd -r finds the framework library) is set for ldd -r alone.

usage: bench/check_vs_ldd.py OPKIT [--runs N] [--lib LIB]
Needs the tensorflow-2.10.1 SDK imported (`opkit sdk add` the 2.10.1 wheel);
without --lib it builds the default template op for 2.10.1 in a temp folder.
docs/benchmarks.md holds the goals and the figures measured.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile

# Forks, execs argv[1..] with stdout/stderr on /dev/null, waits; prints
# "<wall ms> <max RSS KiB> <exit status>".
TIMER_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  struct timespec start, end; struct rusage usage; int status = 0;
  (void)argc;
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1); dup2(null, 2);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) return 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("%.3f %ld %d\n", (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6,
         usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
  return 0;
}
"""

# The goals (docs/benchmarks.md): the op library at least 10x faster than ldd -r and
# at most 20 ms; the framework library faster than ldd -r; opkit's start at most 1.5 ms.
OP_SPEEDUP_GOAL = 10.0
OP_WALL_GOAL_MS = 20.0
START_GOAL_MS = 1.5


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    except OSError:
        pass
    load = os.getloadavg()[0]
    return "%d CPUs (%s), load average %.2f at start" % (os.cpu_count() or 0, model, load)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("opkit")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--lib")
    args = parser.parse_args()
    opkit = os.path.abspath(args.opkit)

    sdks = json.loads(subprocess.check_output([opkit, "sdk", "list", "--json"]))
    sdk = next((s for s in sdks if s["version"] == "2.10.1"), None)
    if sdk is None:
        sys.exit("no tensorflow-2.10.1 SDK imported: run `opkit sdk add` on the 2.10.1 wheel (scripts/fetch-wheels.sh)")
    framework = os.path.join(sdk["path"], "lib", sdk["framework_library"])

    with tempfile.TemporaryDirectory(prefix="opkit-bench.") as tmp:
        installed = os.path.join(tmp, "opkit")
        shutil.copy2(opkit, installed)  # as an install puts it (see above)
        opkit = installed
        timer = os.path.join(tmp, "timer")
        with open(timer + ".c", "w") as source:
            source.write(TIMER_C)
        subprocess.check_call(["cc", "-O2", "-o", timer, timer + ".c"])
        lib = args.lib
        if lib is None:
            subprocess.check_call([opkit, "-q", "new", "bench_op", "--output", tmp + "/bench_op"], stdout=subprocess.DEVNULL)
            subprocess.check_call([opkit, "-q", "-C", tmp + "/bench_op", "build", "--tf", "2.10.1"], stdout=subprocess.DEVNULL)
            lib = tmp + "/bench_op/build/tf-2.10.1/libbench_op.so"
        ldd_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sdk["path"], "lib"))
        cases = [("op library", lib), ("framework library", framework)]
        commands = []
        for _, path in cases:
            commands.append([opkit, "check", path, "--tf", "2.10.1"])
            commands.append(["ldd", "-r", path])
        commands.append([opkit, "--version"])
        commands.append(["/bin/true"])
        samples = [[] for _ in commands]
        for command in commands:  # once unmeasured: the index made, the files in the page cache
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                           env=ldd_env if command[0] == "ldd" else None)
        for _ in range(args.runs):
            for command, sample in zip(commands, samples):
                env = ldd_env if command[0] == "ldd" else None
                wall, rss, status = subprocess.check_output([timer] + command, env=env).split()
                if int(status) not in (0, 1):
                    sys.exit("benchmark command failed (%s): %s" % (status.decode(), " ".join(command)))
                sample.append((float(wall), int(rss) / 1024))

    print("machine: %s" % machine())
    print("%d alternated runs of each; medians of wall time and of peak RSS" % args.runs)
    met = True
    for index, (label, path) in enumerate(cases):
        check, ldd = samples[2 * index], samples[2 * index + 1]
        check_wall, check_rss = (statistics.median(s[i] for s in check) for i in (0, 1))
        ldd_wall, ldd_rss = (statistics.median(s[i] for s in ldd) for i in (0, 1))
        if label == "op library":
            goal_text = ">= %gx faster than ldd -r, <= %g ms" % (OP_SPEEDUP_GOAL, OP_WALL_GOAL_MS)
            goal = ldd_wall / check_wall >= OP_SPEEDUP_GOAL and check_wall <= OP_WALL_GOAL_MS
        else:
            goal_text = "faster than ldd -r"
            goal = check_wall < ldd_wall
        met = met and goal
        print("%s: %s" % (label, os.path.basename(path)))
        print("  %-26s %7.1f ms %7.1f MiB" % ("opkit check --tf 2.10.1", check_wall, check_rss))
        print("  %-26s %7.1f ms %7.1f MiB" % ("ldd -r", ldd_wall, ldd_rss))
        print("  %-26s %8.1fx %8.1fx    goal (%s): %s" % ("ldd -r / opkit check", ldd_wall / check_wall,
                                                          ldd_rss / check_rss, goal_text, "met" if goal else "NOT met"))
    start, true = samples[4], samples[5]
    start_wall, true_wall = (statistics.median(s[0] for s in sample) for sample in (start, true))
    goal = start_wall <= START_GOAL_MS
    met = met and goal
    print("start: opkit --version")
    print("  %-26s %7.2f ms" % ("opkit --version", start_wall))
    print("  %-26s %7.2f ms" % ("/bin/true", true_wall))
    print("  %-26s %7.2f ms    goal (<= %g ms): %s" % ("opkit's own start", start_wall, START_GOAL_MS,
                                                        "met" if goal else "NOT met"))
    print("figures: %d commands x %d runs; goals %s" % (len(commands), args.runs, "met" if met else "NOT all met"))


if __name__ == "__main__":
    main()
