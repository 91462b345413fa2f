#!/usr/bin/env python3
"""Benchmark: a no-op `opkit build` (both versions, TF 1.12.0 and 2.10.1, up to
date; by default fitted to each version's runtime, whose decision is kept with
the target, and with --runtime host, which fits nothing) beside ninja on the
same build folders and make on a Makefile with the same compile commands and
gcc's dependency files. Each call's first no-op runs in full and is kept
(build/.opkit-noop/); the medians are the kept no-op's replays.

usage: bench/build_noop.py OPKIT [--runs N]
Needs the 1.12.0 and 2.10.1 SDKs imported in $OPKIT_HOME.
"""
import json
import os
import shlex
import shutil

import benchlib


def write_makefile(project, path):
    """A Makefile with opkit's own compile commands, as a make user would write it."""
    lines = [".PHONY: all", "all:"]
    libraries = []
    for version in benchlib.VERSIONS:
        build = os.path.join(project, "build", "tf-" + version)
        entries = json.load(open(os.path.join(build, "compile_commands.json")))
        objects = []
        for entry in entries:
            obj = os.path.join(path + ".obj", version, os.path.basename(entry["output"]))
            args = [a for a in entry["arguments"][1:] if a not in ("-c",)]
            args = args[:args.index("-o")] if "-o" in args else args
            lines += ["%s: %s" % (obj, entry["file"]),
                      "\t@mkdir -p $(@D) && %s -MMD -MP -c %s -o $@" % (
                          entry["arguments"][0], " ".join(shlex.quote(a) for a in args if a != entry["file"]) +
                          " " + shlex.quote(entry["file"])),
                      "-include %s.d" % obj[:-2]]
            objects.append(obj)
        ninja = open(os.path.join(build, "build.ninja")).read()
        link_flags = ninja.split("link_flags = ", 1)[1].split("\n", 1)[0]
        lib = os.path.join(path + ".obj", version, "lib.so")
        lines += ["%s: %s" % (lib, " ".join(objects)), "\tg++ $^ -o $@ %s" % link_flags, "all: " + lib]
        libraries.append(lib)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    args, opkit, _sdks = benchlib.start(20)
    with benchlib.Workspace() as tmp:
        project = benchlib.built_project(opkit, tmp)
        benchlib.opkit_build(opkit, project)  # the first no-op run records the check's verdict
        host = os.path.join(tmp, "host")  # the same project built for this machine: no portable link
        shutil.copytree(project, host, ignore=shutil.ignore_patterns("build"))
        benchlib.opkit_build(opkit, host, "--runtime", "host")
        benchlib.opkit_build(opkit, host, "--runtime", "host")
        makefile = os.path.join(tmp, "Makefile")
        write_makefile(project, makefile)
        benchlib.run_quiet(["make", "-s", "-j2", "-f", makefile])
        root = os.path.join(project, "build")  # its build.ninja runs every target's
        medians = benchlib.alternate(args.runs, {
            "opkit build (no-op)": lambda: benchlib.opkit_build(opkit, project),
            "opkit build --no-check (no-op)": lambda: benchlib.opkit_build(opkit, project, "--no-check"),
            "opkit build --runtime host (no-op)": lambda: benchlib.opkit_build(opkit, host, "--runtime", "host"),
            "ninja -C build (both targets)": lambda: benchlib.run_quiet(["ninja", "-C", root]),
            "make (same commands, gcc depfiles)": lambda: benchlib.run_quiet(["make", "-s", "-f", makefile]),
        })
    benchlib.print_figures(
        "no-op build, both versions (%d runs each, medians, %d CPUs)" % (args.runs, os.cpu_count()),
        list(medians.items()), "ninja -C build (both targets)",
        goals=[("opkit build (no-op)", 2.0, 0.05)])


if __name__ == "__main__":
    main()
