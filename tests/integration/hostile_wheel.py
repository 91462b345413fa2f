#!/usr/bin/env python3
"""Writes a TensorFlow-shaped wheel with chosen file contents, for bad-input tests.

    python3 hostile_wheel.py OUT.whl [--version-h TEXT] [--metadata TEXT] [--build-info TEXT]
                             [--entry NAME=TEXT]... [--zeros NAME=BYTES]... [--declare BYTES] [--stored]

The wheel has what `opkit sdk add` looks for first (op.h, a framework library,
version.h, dist-info METADATA and WHEEL) and a RECORD whose sha256s match, so
only the hostile content itself can make opkit refuse it. TEXT may hold any
bytes: pass it through a file with @PATH. --zeros adds a member of BYTES zero
bytes, deflated as it is written (a zip bomb: 3 GiB make a 3 MB wheel);
--declare then writes a false uncompressed size for those members into the
local and central headers (members under 4 GiB: no zip64 fields).
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
    parser.add_argument("--zeros", action="append", default=[])
    parser.add_argument("--declare", type=int)
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
    chunk = bytes(1 << 20)
    zeros = []
    for entry in args.zeros:
        name, _, size = entry.partition("=")
        size = int(size)
        digest = hashlib.sha256()
        for start in range(0, size, len(chunk)):
            digest.update(chunk[:min(len(chunk), size - start)])
        zeros.append((name, size))
        record.append(f"{name},sha256={base64.urlsafe_b64encode(digest.digest()).rstrip(b'=').decode()},{size}")
    record.append("tensorflow-1.12.0.dist-info/RECORD,,")
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_STORED if args.stored else zipfile.ZIP_DEFLATED,
                         compresslevel=1) as z:
        for name, data in files.items():
            z.writestr(name, data)
        for name, size in zeros:
            with z.open(name, "w", force_zip64=args.declare is None) as member:
                for start in range(0, size, len(chunk)):
                    member.write(chunk[:min(len(chunk), size - start)])
        z.writestr("tensorflow-1.12.0.dist-info/RECORD", "\n".join(record) + "\n")
    if args.declare is not None:
        lie(args.out, [name for name, _ in zeros], args.declare)


def lie(path, names, declared):
    """Rewrites the uncompressed size of members `names` in both headers."""
    with zipfile.ZipFile(path) as z:
        offsets = [z.getinfo(name).header_offset for name in names]
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        for offset in offsets:
            assert data[offset:offset + 4] == b"PK\x03\x04"
            data[offset + 22:offset + 26] = declared.to_bytes(4, "little")
        central = data.rfind(b"PK\x05\x06")
        at = int.from_bytes(data[central + 16:central + 20], "little")
        while data[at:at + 4] == b"PK\x01\x02":
            if int.from_bytes(data[at + 42:at + 46], "little") in offsets:
                data[at + 24:at + 28] = declared.to_bytes(4, "little")
            at += 46 + sum(int.from_bytes(data[at + k:at + k + 2], "little") for k in (28, 30, 32))
        f.seek(0)
        f.write(data)


if __name__ == "__main__":
    main()
