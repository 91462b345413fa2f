#!/usr/bin/env python3
"""Benchmark: `opkit sdk fetch tensorflow==2.10.1` fetching only what the SDK
keeps (range requests) beside the same fetch forced to the whole download,
in the same run.

Both fetch from tests/integration/index_server.py on loopback, serving the
real 2.10.1 wheel: one server answers ranges, the other ignores them (so opkit
downloads the whole wheel, as it did before range fetches). The two run
alternately, each into a fresh OPKIT_HOME, first as fast as loopback goes,
then with both servers paced to --rate MB/s (loopback is no network: the
paced pass stands in for one). Prints the median wall time of each, the bytes
on the wire (the servers' logs count them) and the ratios, against the goals:
at most 25% of the wheel's bytes, at least 3x faster than the whole download.
Both fetches end by importing the same 146 MB SDK; `opkit sdk add` of the
wheel on disk, timed alongside, shows that shared floor, and the ratio of
what each fetch takes beyond it. It asserts nothing about time.

usage: bench/fetch_range.py OPKIT [--runs N] [--rate MB/S] [--wheel WHEEL]
The wheel: --wheel, else the test cache's (scripts/fetch-wheels.sh puts it there).
"""
import argparse
import glob
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(SOURCE, "tests", "integration", "index_server.py")


def find_wheel(given):
    if given:
        return os.path.abspath(given)
    cache = os.environ.get("OPKIT_WHEEL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "opkit-test", "wheels")
    found = sorted(glob.glob(os.path.join(cache, "tf-2.10.1", "*.whl")))
    if not found:
        sys.exit(f"no TF 2.10.1 wheel in {cache}/tf-2.10.1: run scripts/fetch-wheels.sh (or pass --wheel)")
    return found[0]


class Index:
    """index_server.py on loopback; its log tells the bytes sent for files."""

    def __init__(self, work, root, name, mode, rate):
        self.log = os.path.join(work, f"log-{name}")
        port_file = os.path.join(work, f"port-{name}")
        argv = [sys.executable, SERVER, "--root", root, "--port-file", port_file, "--log", self.log, "--mode", mode]
        if rate:
            argv += ["--rate", str(rate)]
        self.errors = open(os.path.join(work, f"server-{name}.err"), "w")
        self.process = subprocess.Popen(argv, stderr=self.errors)
        for _ in range(300):
            if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
                break
            if self.process.poll() is not None:
                sys.exit(f"the index server ({name}) died: see {self.errors.name}")
            time.sleep(0.1)
        else:
            sys.exit(f"the index server ({name}) wrote no port")
        with open(port_file) as f:
            self.url = f"http://127.0.0.1:{f.read().strip()}/simple/"

    def log_size(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def files_since(self, offset):
        """(bytes sent, requests) for /files/ since the log had `offset` bytes."""
        with open(self.log) as f:
            f.seek(offset)
            lines = [line for line in f if line.startswith("GET /files/")]
        sent = sum(int(m.group(1)) for line in lines for m in [re.search(r" sent=(\d+)", line)] if m)
        return sent, len(lines)

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.errors.close()


def timed(argv, home):
    """Runs one opkit command with OPKIT_HOME=home (made fresh, removed after): its wall and CPU seconds."""
    env = dict(os.environ, OPKIT_HOME=home)
    for name in ("OPKIT_INDEX_URL", "PIP_INDEX_URL", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(name, None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the servers are not waited for yet: opkit's alone
    shutil.rmtree(home)
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fetch(opkit, index, work):
    """One fetch into a fresh OPKIT_HOME: (wall seconds, CPU seconds, bytes sent, requests)."""
    offset = index.log_size()
    wall, cpu = timed([opkit, "-q", "sdk", "fetch", "tensorflow==2.10.1", "--index-url", index.url],
                      tempfile.mkdtemp(prefix="home.", dir=work))
    sent, requests = index.files_since(offset)
    return wall, cpu, sent, requests


def measure(opkit, ranges, whole, wheel, work, runs):
    """Alternating runs, with `sdk add` of the wheel on disk (the import both fetches end with); the medians."""
    samples = {"ranges": [], "whole": [], "add": []}
    for _ in range(runs):
        samples["ranges"].append(fetch(opkit, ranges, work))
        samples["whole"].append(fetch(opkit, whole, work))
        samples["add"].append(timed([opkit, "-q", "sdk", "add", wheel], tempfile.mkdtemp(prefix="home.", dir=work)))
    return {key: [statistics.median(column) for column in zip(*runs_)] for key, runs_ in samples.items()}


def report(title, results, wheel_size):
    r_wall, r_cpu, r_bytes, r_requests = results["ranges"]
    w_wall, w_cpu, w_bytes, w_requests = results["whole"]
    add_wall, add_cpu = results["add"]
    print(title)
    print("  %-34s %11s %9s %22s %9s" % ("", "median wall", "CPU", "bytes on the wire", "requests"))
    print("  %-34s %9.2f s %7.2f s %13.1f MB %5.1f%% %9d" % (
        "opkit sdk fetch (ranges)", r_wall, r_cpu, r_bytes / 1e6, 100.0 * r_bytes / wheel_size, r_requests))
    print("  %-34s %9.2f s %7.2f s %13.1f MB %5.1f%% %9d" % (
        "opkit sdk fetch (whole download)", w_wall, w_cpu, w_bytes / 1e6, 100.0 * w_bytes / wheel_size, w_requests))
    print("  %-34s %9.2f s %7.2f s" % ("opkit sdk add (the wheel on disk)", add_wall, add_cpu))
    speedup = w_wall / r_wall
    print("  ratio whole/ranges: wall %.2fx, CPU %.2fx, bytes %.2fx" % (speedup, w_cpu / r_cpu, w_bytes / r_bytes))
    if r_wall > add_wall and w_wall > add_wall:
        print("  beyond the import (fetch minus sdk add): ranges %.2f s, whole %.2f s, ratio %.2fx" % (
            r_wall - add_wall, w_wall - add_wall, (w_wall - add_wall) / (r_wall - add_wall)))
    print("  goals: <= 25%% of the wheel's bytes -> %s; >= 3x faster than the whole download -> %s" % (
        "met" if r_bytes <= 0.25 * wheel_size else "NOT met", "met" if speedup >= 3 else "NOT met"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("opkit")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rate", type=float, default=50.0, help="MB/s for the paced pass (default: 50, 400 Mbit/s)")
    parser.add_argument("--wheel")
    args = parser.parse_args()
    opkit = os.path.abspath(args.opkit)
    wheel = find_wheel(args.wheel)
    wheel_size = os.path.getsize(wheel)

    with tempfile.TemporaryDirectory(prefix="opkit-bench.") as work:
        root = os.path.join(work, "index")
        os.mkdir(root)
        os.symlink(wheel, os.path.join(root, os.path.basename(wheel)))
        print("wheel: %s (%.1f MB), %d run%s each, alternating" % (os.path.basename(wheel), wheel_size / 1e6,
                                                                 args.runs, "" if args.runs == 1 else "s"))
        for title, rate in (("loopback, as fast as it goes:", None),
                            ("server paced to %g MB/s (a %g Mbit/s link):" % (args.rate, args.rate * 8), args.rate)):
            suffix = "paced" if rate else "fast"
            ranges = Index(work, root, "ranges-" + suffix, "normal", rate)
            whole = Index(work, root, "whole-" + suffix, "ignore-ranges", rate)
            try:
                results = measure(opkit, ranges, whole, wheel, work, args.runs)
            finally:
                ranges.stop()
                whole.stop()
            report(title, results, wheel_size)


if __name__ == "__main__":
    main()
