#!/usr/bin/env python3
"""Benchmark: `opkit check` with its CPU scan (the default: load-time code held
to the runtime's CPU baseline, every function's extensions read with Zydis)
against the same check without it (`--cpu none`, the check as it was before
the scan), alternated in one run, on libraries of three sizes: the template
op built for 2.10.1 (50 KB), and the 1.12.0 and 2.10.1 framework libraries
themselves (tens of MB of code, far more than any op). A library's scan is
kept in $OPKIT_HOME/cache/cpu until the file changes: "first" clears that
before each run, "again" is the check of an unchanged library. Goal: "again"
at most 1.5x the check without the scan; "first" is printed as it is (the
scan reads every instruction: about a second per 40 MB of code).

usage: bench/check_cpu_scan.py OPKIT [--runs N]
"""
import os
import shutil
import subprocess

import benchlib

GOAL_RATIO = 1.5


def check(opkit, library, version, *flags):
    result = subprocess.run([opkit, "-q", "check", library, "--tf", version] + list(flags),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit("opkit check %s failed (exit %d): %s" % (library, result.returncode, result.stdout[-2000:]))


def main():
    args, opkit, sdks = benchlib.start(default_runs=9)
    with benchlib.Workspace() as work:
        project = benchlib.new_project(opkit, work)
        benchlib.opkit_build(opkit, project)
        cases = [("template op (2.10.1)", os.path.join(project, "build", "tf-2.10.1", "libbench_op.so"), "2.10.1")]
        for sdk in sdks:
            lib = os.path.join(sdk["path"], "lib", sdk["framework_library"])
            cases.append(("%s (%d MB)" % (sdk["framework_library"] + " " + sdk["version"],
                                          os.path.getsize(lib) // 1000000), lib, sdk["version"]))
        steps = {}
        for label, library, version in cases:
            steps[label + ", scan first"] = lambda l=library, v=version: check(opkit, l, v)
            steps[label + ", scan again"] = lambda l=library, v=version: check(opkit, l, v)
            steps[label + ", --cpu none"] = lambda l=library, v=version: check(opkit, l, v, "--cpu", "none")
        kept = os.path.join(os.environ.get("OPKIT_HOME", os.path.expanduser("~/.cache/opkit")), "cache", "cpu")

        def prepare(name):
            if name.endswith("scan first"):
                shutil.rmtree(kept, ignore_errors=True)

        medians = benchlib.alternate(args.runs, steps, prepare)
    for label, _, _ in cases:
        benchlib.print_figures("opkit check %s (%d runs each, medians)" % (label, args.runs),
                               [(label + ", " + v, medians[label + ", " + v])
                                for v in ("scan first", "scan again", "--cpu none")],
                               label + ", --cpu none", goals=[(label + ", scan again", GOAL_RATIO, None)])


if __name__ == "__main__":
    main()
