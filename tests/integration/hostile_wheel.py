#!/usr/bin/env python3
"""Writes a TensorFlow-shaped wheel with chosen file contents, for bad-input tests.

    python3 hostile_wheel.py OUT.whl [--version-h TEXT] [--metadata TEXT] [--build-info TEXT]
                             [--entry NAME=TEXT]... [--stored]

The wheel has what `opkit sdk add` looks for first (op.h, a framework library,
version.h, dist-info METADATA and WHEEL) and a RECORD whose sha256s match, so
only the hostile content itself can make opkit refuse it. TEXT may hold any
bytes: pass it through a file with @PATH.
"""
import argparse
import base64
import hashlib
import zipfile


def text(value):
    if value.startswith("@"):
        with open(value[1:], "rb") as f:
            return f.read()
    return value.encode("utf-8", "surrogateescape")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--version-h", default="#define TF_MAJOR_VERSION 1\n#define TF_MINOR_VERSION 12\n"
                        "#define TF_PATCH_VERSION 0\n#define TF_VERSION_SUFFIX \"\"\n")
    parser.add_argument("--metadata", default="Metadata-Version: 2.1\nName: tensorflow\nVersion: 1.12.0\n")
    parser.add_argument("--build-info", default="is_cuda_build = False\n")
    parser.add_argument("--entry", action="append", default=[])
    parser.add_argument("--stored", action="store_true", help="store members uncompressed")
    args = parser.parse_args()
    files = {
        "tensorflow/include/tensorflow/core/framework/op.h": b"// op.h\n",
        "tensorflow/include/tensorflow/core/public/version.h": text(args.version_h),
        "tensorflow/libtensorflow_framework.so": b"\x7fELF not really a library\n",
        "tensorflow/python/platform/build_info.py": text(args.build_info),
        "tensorflow-1.12.0.dist-info/METADATA": text(args.metadata),
        "tensorflow-1.12.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nTag: cp36-cp36m-manylinux1_x86_64\n",
    }
    for entry in args.entry:
        name, _, value = entry.partition("=")
        files[name] = text(value)
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("tensorflow-1.12.0.dist-info/RECORD,,")
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_STORED if args.stored else zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr("tensorflow-1.12.0.dist-info/RECORD", "\n".join(record) + "\n")


if __name__ == "__main__":
    main()
