#!/usr/bin/env python3
"""Benchmark: what a team's shared compile cache and distcc helpers save.
A clean build of a new project for TF 1.12.0 and 2.10.1, each in the same go:
  - cold, this machine only (no cache, no PCH: what a fresh CI machine does);
  - a remote-cache hit: ccache with a real redis-server on loopback as its
    remote storage, already filled by another folder's build, an empty local cache;
  - distcc: two distccd helpers on loopback addresses (127.0.0.2, 127.0.0.3) of
    this machine, an empty cache (on one machine the helpers share its CPUs, so
    this shows the overhead, not the speed-up of real helper machines).

usage: bench/build_shared_cache.py OPKIT [--runs N]
Needs the SDKs imported in $OPKIT_HOME, and redis-server, ccache and distcc installed.
"""
import os
import shutil
import socket
import subprocess
import sys
import time

import benchlib


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for(host, port):
    for _ in range(100):
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit("server on %s:%d did not start" % (host, port))


def main():
    args, opkit, _sdks = benchlib.start(3)
    for tool in ("redis-server", "ccache", "distcc", "distccd"):
        if shutil.which(tool) is None:
            sys.exit("%s not installed (scripts/setup.sh installs it)" % tool)
    with benchlib.Workspace() as tmp:
        servers = []
        try:
            port = free_port()
            servers.append(subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                                             "--appendonly", "no", "--dir", tmp], stdout=subprocess.DEVNULL))
            wait_for("127.0.0.1", port)
            helpers = []
            for host in ("127.0.0.2", "127.0.0.3"):
                hport = free_port(host)
                servers.append(subprocess.Popen(["distccd", "--daemon", "--no-detach", "--listen", host, "--port",
                                                 str(hport), "--allow", "127.0.0.0/8", "--jobs", "2"]))
                wait_for(host, hport)
                helpers.append("%s:%d/2" % (host, hport))
            remote = "redis://127.0.0.1:%d" % port
            project = benchlib.new_project(opkit, tmp, "bench_op")
            filler = os.path.join(tmp, "elsewhere", "bench_op")  # the same project in another folder
            shutil.copytree(project, filler)
            env = dict(os.environ)

            def build(root, extra_env, *flags):
                return lambda: benchlib.run_quiet(
                    [opkit, "-q", "-C", root, "build", "--tf", ",".join(benchlib.VERSIONS)] + list(flags),
                    env=dict(env, **extra_env))

            # Another folder fills the remote cache once (as another CI machine would).
            build(filler, {"OPKIT_CACHE_REMOTE": remote, "CCACHE_DIR": os.path.join(tmp, "ccache-filler")})()
            round_no = [0]

            def fresh(_name):
                shutil.rmtree(os.path.join(project, "build"), ignore_errors=True)
                round_no[0] += 1
                env["CCACHE_DIR"] = os.path.join(tmp, "ccache-%d" % round_no[0])  # an empty local cache each time

            medians = benchlib.alternate(args.runs, {
                "cold, this machine only (no cache, no PCH)": build(project, {}, "--no-cache", "--no-pch"),
                "remote-cache hits (redis), empty local cache": build(project, {"OPKIT_CACHE_REMOTE": remote}),
                "distcc, 2 helpers on loopback, empty cache": build(project, {"OPKIT_DISTCC_HOSTS": " ".join(helpers)}),
            }, prepare=fresh)
        finally:
            for server in servers:
                server.terminate()
                server.wait()
    benchlib.print_figures(
        "clean build of a new project, both versions (%d runs each, medians, %d CPUs)" % (args.runs, os.cpu_count()),
        list(medians.items()), "cold, this machine only (no cache, no PCH)")


if __name__ == "__main__":
    main()
