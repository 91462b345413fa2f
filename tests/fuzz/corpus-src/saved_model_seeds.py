#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/corpus-saved-model/: saved_model.pb files.

    python3 tests/fuzz/corpus-src/saved_model_seeds.py tests/fuzz/corpus-saved-model

An independent writer of the protobuf wire format for the fields opkit's
SavedModel check reads (tensorflow/core/protobuf/saved_model.proto,
meta_graph.proto, tensorflow/core/framework/graph.proto): seed.pb is a small
SavedModel opkit accepts, then one variant per check. Deterministic.
"""

import pathlib
import sys


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def vfield(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value)


def lfield(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


NODE = lfield(1, b"x") + lfield(2, b"Placeholder") + lfield(5, lfield(1, b"dtype") + lfield(2, vfield(6, 1)))
GRAPH = lfield(1, NODE) + lfield(4, vfield(1, 1087))
INFO = lfield(4, b"serve") + lfield(5, b"2.15.1") + lfield(6, b"v2.15.0-11-g63f5a65c7cd")
SIGNATURE = lfield(1, b"serving_default") + lfield(2, lfield(3, b"tensorflow/serving/predict"))
META = lfield(1, INFO) + lfield(2, GRAPH) + lfield(3, vfield(7, 2)) + lfield(5, SIGNATURE) + lfield(7, lfield(1, b""))
SEED = vfield(1, 1) + lfield(2, META)

SEEDS = {
    "seed.pb": SEED,
    "two-meta-graphs.pb": SEED + lfield(2, META.replace(b"serve", b"train")),
    "unknown-fields.pb": vfield(1, 1) + tag(9, 1) + bytes(8) + tag(10, 5) + bytes(4) + lfield(2, META + vfield(99, 1)),
    "empty.pb": b"",
    "no-meta-graph.pb": vfield(1, 1),
    "text.pb": b"saved_model_schema_version: 1\nmeta_graphs {\n}\n",
    "truncated-half.pb": SEED[: len(SEED) // 2],
    "truncated-varint.pb": vfield(1, 1) + tag(2, 2) + b"\x80",
    "length-huge.pb": vfield(1, 1) + tag(2, 2) + varint(2**64 - 1) + META,
    "varint-overlong.pb": tag(1, 0) + b"\xff" * 10 + b"\x01" + lfield(2, META),
    "schema-wrong-type.pb": lfield(1, b"1") + lfield(2, META),
    "meta-graph-wrong-type.pb": vfield(1, 1) + vfield(2, 1),
    "meta-graph-garbage.pb": vfield(1, 1) + lfield(2, b"\xff\xff\xff"),
    "graph-def-wrong-type.pb": vfield(1, 1) + lfield(2, vfield(2, 1)),
    "node-wrong-type.pb": vfield(1, 1) + lfield(2, lfield(2, vfield(1, 1))),
    "tags-past-end.pb": vfield(1, 1) + lfield(2, lfield(1, tag(4, 2) + varint(50) + b"serve")),
    "group.pb": vfield(1, 1) + tag(3, 3) + tag(3, 4) + lfield(2, META),
    "field-zero.pb": b"\x00" + lfield(2, META),
}


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, data in SEEDS.items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main()
