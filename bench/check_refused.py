#!/usr/bin/env python3
"""Benchmark: `opkit check` on a library it refuses against one it passes, per
TF version, in the same run (issue 17: a refused check once took 0.43-0.7 s,
a passing one 0.05 s, because the diagnosis demangled every export of the
framework).

The template op is built for 1.12.0 and 2.10.1 as it should be (passes), and
refused variants of it: 1.12.0 with the other C++ ABI (dual-abi-mismatch,
--abi 1) and 2.10.1 as C++14 (cxx-standard-mismatch, --std 14). The checks run
alternated, --runs times each; the figures are medians, and the goal is a
refused check at most 2x its version's passing one.

usage: bench/check_refused.py OPKIT [--runs N]
"""
import os
import subprocess

import benchlib

GOAL_RATIO = 2.0


def main():
    args, opkit, _ = benchlib.start(default_runs=21)
    with benchlib.Workspace() as work:
        project = benchlib.new_project(opkit, work)
        benchlib.opkit_build(opkit, project)
        benchlib.run_quiet([opkit, "-q", "-C", project, "build", "--no-cache", "--no-check", "--tf", "1.12",
                            "--abi", "1", "--build-dir", "build-abi"])
        benchlib.run_quiet([opkit, "-q", "-C", project, "build", "--no-cache", "--no-check", "--tf", "2.10.1",
                            "--std", "14", "--build-dir", "build-std"])
        lib = lambda folder, version: os.path.join(project, folder, "tf-" + version, "libbench_op.so")
        cases = {
            "1.12.0 passes": (lib("build", "1.12.0"), "1.12", 0),
            "1.12.0 refused (dual-abi-mismatch)": (lib("build-abi", "1.12.0"), "1.12", 1),
            "2.10.1 passes": (lib("build", "2.10.1"), "2.10.1", 0),
            "2.10.1 refused (cxx-standard-mismatch)": (lib("build-std", "2.10.1"), "2.10.1", 1),
        }

        def step(path, version, expected):
            def run():
                code = subprocess.run([opkit, "check", path, "--tf", version], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL).returncode
                if code != expected:
                    raise SystemExit("opkit check %s --tf %s: exit %d, expected %d" % (path, version, code, expected))
            return run

        steps = {name: step(*case) for name, case in cases.items()}
        for run in steps.values():  # once unmeasured: the symbol indexes made, the files in the page cache
            run()
        medians = benchlib.alternate(args.runs, steps)
    for version, refused in (("1.12.0", "1.12.0 refused (dual-abi-mismatch)"),
                             ("2.10.1", "2.10.1 refused (cxx-standard-mismatch)")):
        baseline = version + " passes"
        benchlib.print_figures("opkit check, TF %s (%d alternated runs, medians)" % (version, args.runs),
                               [(baseline, medians[baseline]), (refused, medians[refused])], baseline,
                               [(refused, GOAL_RATIO, None)])
    print("figures: %d checks x %d runs" % (len(cases), args.runs))


if __name__ == "__main__":
    main()
