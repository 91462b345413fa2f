#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/corpus-index/: opkit symbol indexes.

    python3 tests/fuzz/corpus-src/index_seeds.py tests/fuzz/corpus-index

An independent writer of the format src/opkit/elf/symbol_index.cpp
documents (version 4), so the seeds also check that documentation: seed.idx
must open in opkit. Then one variant per check of the reader. Deterministic.
"""

import pathlib
import struct
import sys

HEADER = 64


def fnv1a(data: bytes, h: int = 2166136261) -> int:
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def h_name(data: bytes) -> int:
    """H of the layout: 8 bytes a step, little-endian, then the tail."""
    mask = 0xFFFFFFFFFFFFFFFF
    h = 0x9E3779B97F4A7C15 ^ len(data)
    at = 0
    while at + 8 <= len(data):
        h = ((h ^ int.from_bytes(data[at:at + 8], "little")) * 0xFF51AFD7ED558CCD) & mask
        h ^= h >> 32
        at += 8
    h = ((h ^ int.from_bytes(data[at:], "little")) * 0xC4CEB9FE1A85EC53) & mask
    h ^= h >> 29
    return h & 0xFFFFFFFF


def build(soname, definitions, symbols, size=1234, mtime_ns=5678) -> bytearray:
    """symbols: (name, version, hidden) in order."""
    strings = bytearray()
    versions = [(0, 0)]
    numbers = {"": 0}

    def add(text: str):
        offset = len(strings)
        strings.extend(text.encode())
        return offset, len(text.encode())

    def version(name: str) -> int:
        if name not in numbers:
            numbers[name] = len(versions)
            versions.append(add(name))
        return numbers[name]

    words = [version(ver) | (0x80000000 if hidden else 0) for _, ver, hidden in symbols]
    defs = [version(v) for v in definitions]
    buckets = 1
    while buckets < len(symbols):
        buckets *= 2
    # Grouped by bucket, in the library's order within each; the names go into
    # the string table in this order (since version 3), then the soname.
    order = sorted(range(len(symbols)), key=lambda i: (h_name(symbols[i][0].encode()) & (buckets - 1), i))
    grouped = []
    for i in order:
        offset, length = add(symbols[i][0])
        grouped.append((i, (h_name(symbols[i][0].encode()), offset, length, words[i])))
    # stored: the entry check (FNV-1a over the other four fields), then those fields
    so_offset, so_length = add(soname)
    entries = grouped
    tables = b"".join(struct.pack("<II", *v) for v in versions) + struct.pack(f"<{len(defs)}I", *defs)
    check = fnv1a(tables)
    for offset, length in versions:
        check = fnv1a(bytes(strings[offset:offset + length]), check)
    check = fnv1a(soname.encode(), check)
    starts = [0] * (buckets + 1)
    for _, e in grouped:
        starts[(e[0] & (buckets - 1)) + 1] += 1
    for b in range(buckets):
        starts[b + 1] += starts[b]
    head = b"OPKITSYM" + struct.pack("<IIQqIIIIIII", 4, buckets, size, mtime_ns, len(entries), len(versions),
                                     len(defs), len(strings), so_offset, so_length, check)
    out = bytearray(head + struct.pack("<I", fnv1a(head)))
    assert len(out) == HEADER
    out += struct.pack(f"<{buckets + 1}I", *starts)
    for _, (name_hash, offset, length, word) in grouped:
        fields = struct.pack("<IIII", name_hash, offset, length, word)
        out += struct.pack("<I", fnv1a(fields)) + fields
    out += tables
    out += strings
    return out


def reheader(data: bytearray) -> bytearray:
    """Recomputes the header checksum after a header field was patched."""
    struct.pack_into("<I", data, 60, fnv1a(bytes(data[:60])))
    return data


def patched(data: bytearray, old: bytes, new: bytes) -> bytearray:
    """The first `old` in the string table replaced by `new`, of the same length."""
    at = data.rindex(old)
    return data[:at] + new + data[at + len(old):]


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seed = build("libseed.so.1", ["SEED_1.0", "SEED_2.0"],
                 [("seed_add", "SEED_1.0", True), ("seed_add", "SEED_2.0", False), ("seed_value", "SEED_2.0", False),
                  ("_Znwm", "", False), ("f", "", False)])
    entries_at = HEADER + 4 * (struct.unpack_from("<I", seed, 12)[0] + 1)
    variants = {
        "seed.idx": seed,
        "empty-table.idx": build("libnone.so", [], []),
        "truncated.idx": seed[:-1],
        "checksum-bad.idx": seed[:60] + bytes([seed[60] ^ 1]) + seed[61:],
        "format-1.idx": reheader(bytearray(seed[:8] + struct.pack("<I", 1) + seed[12:])),
        "buckets-not-power-of-two.idx": reheader(bytearray(seed[:12] + struct.pack("<I", 3) + seed[16:])),
        "bucket-start-past-end.idx": seed[:HEADER + 4] + struct.pack("<I", 0xFFFF) + seed[HEADER + 8:],
        "entry-name-outside.idx": seed[:entries_at + 8] + struct.pack("<I", 0x7FFFFFFF) + seed[entries_at + 12:],
        "entry-version-bad.idx": seed[:entries_at + 16] + struct.pack("<I", 99) + seed[entries_at + 20:],
        "entry-check-bad.idx": seed[:entries_at] + struct.pack("<I", 0xFFFFFFFF) + seed[entries_at + 4:],
        "entry-name-changed.idx": patched(seed, b"seed_value", b"seed_valuE"),
        "version-name-changed.idx": patched(seed, b"SEED_1.0", b"SEED_1.9"),
    }
    for name, data in variants.items():
        (out / name).write_bytes(bytes(data))


if __name__ == "__main__":
    main()
