#!/usr/bin/env python3
"""Fetches the files opkit derives an SDK's facts from, out of the official
wheels of several TensorFlow and torch releases, into a shared cache:
${OPKIT_FACT_CACHE:-~/.cache/opkit-test/fact-files}/<project>-<version>/.

Only those members are read, with HTTP range requests on the wheel the index
lists (the zip's central directory, then each member), so a release costs
about 1 MB, not its 250-550 MB wheel. They are laid out as an SDK's staging
folder holds them (include/tensorflow/core/public/version.h, dist-info/METADATA,
facts/cpp_extension.py, version.py), for tests/unit/test_sdk_facts_real.cpp.

Usage: fetch-fact-files.py [--index URL]   (default: pip's default index)
Prints each release folder; a folder already complete is not fetched again.
"""
import io
import json
import os
import pathlib
import sys
import urllib.parse
import urllib.request
import zipfile

# The releases, with the Linux x86-64 CPython wheel read (any python).
RELEASES = [
    ("tensorflow", "1.12.0"), ("tensorflow-cpu", "2.10.1"), ("tensorflow-cpu", "2.15.1"),
    ("tensorflow-cpu", "2.19.1"), ("tensorflow-cpu", "2.20.0"), ("tensorflow-cpu", "2.21.0"),
    ("torch", "2.5.1"), ("torch", "2.8.0"), ("torch", "2.11.0"), ("torch", "2.12.1"),
    ("torch", "2.14.1"), ("torch", "2.15.0"),
]
# wheel member (its path below the package folder) -> where the staging folder keeps it
TF_MEMBERS = {
    "include/tensorflow/core/public/version.h": "include/tensorflow/core/public/version.h",
    "include/tensorflow/core/public/release_version.h": "include/tensorflow/core/public/release_version.h",
}
TORCH_MEMBERS = {
    "utils/cpp_extension.py": "facts/cpp_extension.py",
    "share/cmake/Torch/TorchConfig.cmake": "facts/TorchConfig.cmake",
    "version.py": "version.py",
}


class RangeFile(io.RawIOBase):
    """A remote file read with Range requests (the zip module seeks in it)."""

    def __init__(self, url):
        self.url, self.pos = url, 0
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as r:
            self.size = int(r.headers["Content-Length"])

    def seekable(self):
        return True

    def readable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        self.pos = offset if whence == 0 else self.pos + offset if whence == 1 else self.size + offset
        return self.pos

    def readinto(self, buffer):
        n = min(len(buffer), self.size - self.pos)
        if n <= 0:
            return 0
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={self.pos}-{self.pos + n - 1}"})
        with urllib.request.urlopen(request, timeout=60) as r:
            data = r.read()
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def linux_wheel(index, project, version):
    page = index.rstrip("/") + "/" + project + "/"
    request = urllib.request.Request(page, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        files = json.load(r)["files"]
    prefix = project.replace("-", "_") + "-" + version + "-"
    for f in files:
        name = f["filename"]
        if name.startswith(prefix) and name.endswith(".whl") and "linux" in name and "x86_64" in name \
                and "t-manylinux" not in name:
            return urllib.parse.urljoin(page, f["url"]), name
    sys.exit(f"fetch-fact-files: {project}=={version}: no Linux x86-64 wheel on {index}")


def fetch(index, cache, project, version):
    folder = cache / f"{project}-{version}"
    if (folder / "complete").exists():
        return folder
    url, name = linux_wheel(index, project, version)
    print(f"fetch-fact-files: reading {name}'s fact files (once) ...", file=sys.stderr)
    partial = cache / f".{project}-{version}.partial"
    if partial.exists():
        for p in sorted(partial.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    package = "torch" if project == "torch" else "tensorflow"
    members = TORCH_MEMBERS if package == "torch" else TF_MEMBERS
    with zipfile.ZipFile(io.BufferedReader(RangeFile(url), buffer_size=1 << 16)) as wheel:
        names = set(wheel.namelist())
        wanted = {}
        for entry in names:  # TF 1.x keeps its package below <name>.data/purelib/
            for member, kept in members.items():
                if entry == f"{package}/{member}" or entry.endswith(f"/purelib/{package}/{member}"):
                    wanted[entry] = kept
            parts = entry.split("/")
            if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] in ("METADATA", "WHEEL"):
                wanted[entry] = "dist-info/" + parts[1]
        for entry, kept in wanted.items():
            if entry in names:
                target = partial / kept
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(wheel.read(entry))
    (partial / "wheel").write_text(name + "\n")
    (partial / "complete").write_text("")
    partial.rename(folder)
    return folder


def main():
    index = "https://pypi.org/simple/"
    if len(sys.argv) == 3 and sys.argv[1] == "--index":
        index = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    default = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "opkit-test" / "fact-files"
    cache = pathlib.Path(os.environ.get("OPKIT_FACT_CACHE", default))
    cache.mkdir(parents=True, exist_ok=True)
    for project, version in RELEASES:
        print(fetch(index, cache, project, version))


if __name__ == "__main__":
    main()
