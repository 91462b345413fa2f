#!/usr/bin/env python3
"""Benchmark: rebuilding both versions (TF 1.12.0, 2.10.1) after touching the
kernel source, beside the hand g++ recipe, which recompiles everything.

usage: bench/build_touch.py OPKIT [--runs N]
Needs the 1.12.0 and 2.10.1 SDKs imported in $OPKIT_HOME.
"""
import os

import benchlib


def main():
    args, opkit, sdk_list = benchlib.start(5)
    with benchlib.Workspace() as tmp:
        project = benchlib.built_project(opkit, tmp)
        recipe = benchlib.recipe_commands(project, sdk_list, tmp)
        kernel = os.path.join(project, "src", "bench_op_kernels.cc")

        def touch(_name):
            os.utime(kernel)

        medians = benchlib.alternate(args.runs, {
            "opkit build after touching the kernel": lambda: benchlib.opkit_build(opkit, project),
            "g++ recipe, versions in sequence": lambda: benchlib.run_sequential(recipe),
            "g++ recipe, versions in parallel": lambda: benchlib.run_parallel(recipe),
        }, prepare=touch)
    benchlib.print_figures(
        "touched kernel, both versions (%d runs each, medians, %d CPUs)" % (args.runs, os.cpu_count()),
        list(medians.items()), "g++ recipe, versions in sequence",
        goals=[("opkit build after touching the kernel", 0.3, None)])


if __name__ == "__main__":
    main()
