#!/usr/bin/env python3
"""Writes the derived seeds of tests/fuzz/corpus/ from seed-x86_64.so.

    python3 tests/fuzz/corpus-src/mutate.py tests/fuzz/corpus

Reads <corpus>/seed-x86_64.so (built from seed.cc, see ../README.md) and
writes, next to it, the non-ELF inputs and one variant per check in
src/opkit/elf/elf_file.cpp (and a few libelf refusals libFuzzer found). Deterministic: the same seed gives the same
bytes. Variants that fail in the ELF header keep only the 64-byte header, so
the corpus stays small.
"""

import pathlib
import struct
import sys

EHDR_SIZE = 64
SHDR_SIZE = 64

SHT_PROGBITS = 1
SHT_DYNAMIC = 6
SHT_DYNSYM = 11
SHT_GNU_VERDEF = 0x6FFFFFFD
SHT_GNU_VERNEED = 0x6FFFFFFE
SHT_GNU_VERSYM = 0x6FFFFFFF
SHF_ALLOC = 0x2
SHF_COMPRESSED = 0x800
DT_SONAME = 14


class Elf:
    """Just enough of a 64-bit little-endian ELF to patch fields in place."""

    def __init__(self, data: bytes):
        self.data = bytearray(data)
        (self.shoff,) = struct.unpack_from("<Q", self.data, 0x28)
        (self.shnum,) = struct.unpack_from("<H", self.data, 0x3C)

    def copy(self) -> "Elf":
        return Elf(bytes(self.data))

    def shdr_offset(self, index: int) -> int:
        return self.shoff + index * SHDR_SIZE

    def section(self, sh_type: int):
        """(index, sh_offset, sh_size) of the first section of this type."""
        for index in range(self.shnum):
            base = self.shdr_offset(index)
            (kind,) = struct.unpack_from("<I", self.data, base + 4)
            if kind == sh_type:
                (offset, size) = struct.unpack_from("<QQ", self.data, base + 0x18)
                return index, offset, size
        raise SystemExit(f"mutate.py: seed has no section of type {sh_type:#x}")

    def put(self, fmt: str, offset: int, *values) -> "Elf":
        struct.pack_into(fmt, self.data, offset, *values)
        return self


def variants(seed: Elf):
    """(file name, bytes, what it exercises) for every derived seed."""
    header = bytes(seed.data[:EHDR_SIZE])

    def patched_header(offset: int, fmt: str, value) -> bytes:
        out = bytearray(header)
        struct.pack_into(fmt, out, offset, value)
        return bytes(out)

    dyn_index, dyn_off, dyn_size = seed.section(SHT_DYNAMIC)
    dynsym_index, _, dynsym_size = seed.section(SHT_DYNSYM)
    vs_index, vs_off, vs_size = seed.section(SHT_GNU_VERSYM)
    vd_index, vd_off, vd_size = seed.section(SHT_GNU_VERDEF)
    _, vn_off, vn_size = seed.section(SHT_GNU_VERNEED)
    # The layout below (need, aux, need, aux x3, need, aux) is the seed's; check it.
    if struct.unpack_from("<HH", seed.data, vn_off + 0x20) != (1, 3) or vn_size != 0x80:
        raise SystemExit("mutate.py: .gnu.version_r is not laid out as this script expects")

    def first_dyn(tag: int) -> int:
        for pos in range(dyn_off, dyn_off + dyn_size, 16):
            (d_tag,) = struct.unpack_from("<q", seed.data, pos)
            if d_tag == tag:
                return pos
        raise SystemExit(f"mutate.py: seed has no dynamic tag {tag}")

    yield "empty", b"", "zero bytes: not an ELF file"
    yield "text.txt", b"This is a text file, not an ELF shared library.\n", "not an ELF file"
    yield "magic-only", header[:4], "ELF magic, shorter than e_ident"
    yield "ident-only", header[:16], "whole e_ident, shorter than the ELF header"
    yield "class32", patched_header(4, "<B", 1), "EI_CLASS = ELFCLASS32"
    yield "class-bad", patched_header(4, "<B", 7), "unknown EI_CLASS"
    yield "big-endian", patched_header(5, "<B", 2), "EI_DATA = ELFDATA2MSB"
    yield "type-exec", patched_header(0x10, "<H", 2), "e_type = ET_EXEC"
    yield "machine-arm", patched_header(0x12, "<H", 40), "e_machine = EM_ARM (unsupported)"
    yield "data-bad", patched_header(5, "<B", 0x45), "unknown EI_DATA"
    yield "type-rel", patched_header(0x10, "<H", 1), "e_type = ET_REL"
    yield "type-core", patched_header(0x10, "<H", 4), "e_type = ET_CORE"
    yield "type-other", patched_header(0x10, "<H", 0x7A), "e_type = 122 (no such type)"
    yield "machine-aarch64", patched_header(0x12, "<H", 183), "e_machine = EM_AARCH64, header only"
    yield "header-only", header, "valid header, section table past the end"
    # e_shnum = 0 says "the count is in section 0's sh_size", and e_shoff = 1
    # puts that section header inside the ELF header: libelf refuses the file.
    extended = bytearray(header + b"\0")
    struct.pack_into("<Q", extended, 0x28, 1)
    struct.pack_into("<H", extended, 0x3C, 0)
    yield "shnum-extended-bad", bytes(extended), "e_shnum = 0 with e_shoff = 1 (found by libFuzzer)"

    yield "truncated-half", bytes(seed.data[: len(seed.data) // 2]), "cut in half"
    yield ("shentsize-bad", bytes(seed.copy().put("<H", 0x3A, 32).data),
           "e_shentsize != sizeof(Elf64_Shdr)")
    # Elf64_Shdr: sh_name(4) sh_type(4) sh_flags(8) sh_addr(8) sh_offset(8) sh_size(8) ...
    yield ("dynsym-compressed", bytes(seed.copy().put("<Q", seed.shdr_offset(dynsym_index) + 8, SHF_ALLOC | SHF_COMPRESSED).data),
           ".dynsym flagged SHF_COMPRESSED without a compression header (found by libFuzzer)")
    yield ("dynsym-size-ragged", bytes(seed.copy().put("<Q", seed.shdr_offset(dynsym_index) + 0x20, dynsym_size - 1).data),
           ".dynsym sh_size not a multiple of sizeof(Elf64_Sym) (found by libFuzzer)")
    yield ("no-dynamic", bytes(seed.copy().put("<I", seed.shdr_offset(dyn_index) + 4, SHT_PROGBITS).data),
           ".dynamic retyped to SHT_PROGBITS")
    yield ("soname-offset-bad", bytes(seed.copy().put("<Q", first_dyn(DT_SONAME) + 8, 0xFFFFFF).data),
           "DT_SONAME string offset past .dynstr")
    yield ("versym-short", bytes(seed.copy().put("<Q", seed.shdr_offset(vs_index) + 0x20, vs_size - 2).data),
           ".gnu.version one entry shorter than .dynsym")
    # The last .dynsym entry's .gnu.version entry names a version nobody defines.
    yield ("versym-index-bad", bytes(seed.copy().put("<H", vs_off + vs_size - 2, 0x7FF0).data),
           "symbol with an undefined version index")
    # Elf64_Verdef: vd_version(2) vd_flags(2) vd_ndx(2) vd_cnt(2) vd_hash(4) vd_aux(4) vd_next(4)
    yield ("verdef-next-misaligned", bytes(seed.copy().put("<I", vd_off + 16, 2).data),
           "vd_next = 2: misaligned version record")
    yield ("verdef-aux-outside", bytes(seed.copy().put("<I", vd_off + 12, 0x10000).data),
           "vd_aux far past .gnu.version_d")
    # Elf64_Verneed: vn_version(2) vn_cnt(2) vn_file(4) vn_aux(4) vn_next(4)
    # Elf64_Vernaux: vna_hash(4) vna_flags(2) vna_other(2) vna_name(4) vna_next(4).
    # The second need (libstdc++.so.6) claims 65535 versions, and its last
    # auxiliary entry (at 0x50) points 0x30 on, to offset 0x80 == sh_size:
    # opkit's bound check lets an offset equal to the size through, and libelf
    # refuses the record ("offset out of range").
    yield ("verneed-aux-at-end", bytes(seed.copy().put("<H", vn_off + 0x20 + 2, 0xFFFF)
                                       .put("<I", vn_off + 0x50 + 12, 0x30).data),
           "vn_cnt = 65535, last vna_next = 0x30: a record at the very end of the section")
    # .gnu.version_d claims 65535 definitions (sh_info) and every 32-bit word
    # of it reads 4: each Elf64_Verdef has vd_cnt = 0 and vd_next = 4, so the
    # records overlap until the walker's budget runs out ("loop or overlap").
    # (.gnu.version_r cannot do this: libelf wants its records 16-byte aligned.)
    overlap = seed.copy().put("<I", seed.shdr_offset(vd_index) + 0x2C, 0xFFFF)
    for pos in range(vd_off, vd_off + vd_size - vd_size % 4, 4):
        overlap.put("<I", pos, 4)
    yield "verdef-overlap", bytes(overlap.data), "vd_next = 4 over and over: overlapping records"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    corpus = pathlib.Path(sys.argv[1])
    seed = Elf((corpus / "seed-x86_64.so").read_bytes())
    for name, data, what in variants(seed):
        (corpus / name).write_bytes(data)
        print(f"{name:24} {len(data):6} bytes  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
