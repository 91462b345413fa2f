#!/usr/bin/env python3
"""Benchmark: a cold build of a new project for TF 1.12.0 and 2.10.1, with the
SDKs' precompiled headers already made (they are made once per SDK and compiler),
beside the hand g++ recipe per version, in sequence and in parallel.

usage: bench/build_cold.py OPKIT [--runs N]
Needs the 1.12.0 and 2.10.1 SDKs imported in $OPKIT_HOME.
"""
import os
import shutil

import benchlib


def main():
    args, opkit, sdk_list = benchlib.start(5)
    with benchlib.Workspace() as tmp:
        project = benchlib.built_project(opkit, tmp)  # makes the PCHs, once per SDK, untimed
        recipe = benchlib.recipe_commands(project, sdk_list, tmp)

        def clean(_name):
            shutil.rmtree(os.path.join(project, "build"), ignore_errors=True)

        medians = benchlib.alternate(args.runs, {
            "opkit build (PCH ready)": lambda: benchlib.opkit_build(opkit, project),
            "opkit build --no-pch": lambda: benchlib.opkit_build(opkit, project, "--no-pch"),
            "g++ recipe, versions in sequence": lambda: benchlib.run_sequential(recipe),
            "g++ recipe, versions in parallel": lambda: benchlib.run_parallel(recipe),
        }, prepare=clean)
    benchlib.print_figures(
        "cold build of a new project, both versions (%d runs each, medians, %d CPUs)" % (args.runs, os.cpu_count()),
        list(medians.items()), "g++ recipe, versions in sequence",
        goals=[("opkit build (PCH ready)", 0.35, None)])


if __name__ == "__main__":
    main()
