#!/usr/bin/env python3
"""Makes a tampered copy of a wheel for opkit's integration tests (standard library only).

    python3 tamper_wheel.py SRC DST MEMBER [TEXT]

DST is SRC with TEXT (default: a C++ comment line) appended to MEMBER: that
member re-deflated with its CRC and sizes updated in its local header and its
central directory record, every later member's offset moved, the rest of the
bytes copied as they are. DST is a valid zip (zipfile and libarchive read it,
CRCs and all) whose MEMBER no longer matches the sha256 the wheel's RECORD
gives: only a RECORD check can tell.
"""
import os
import struct
import sys
import zipfile
import zlib

LOCAL = struct.Struct("<IHHHHHIIIHH")  # signature ... name length, extra length
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END = struct.Struct("<IHHHHIIH")


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, dst, member = sys.argv[1:4]
    text = (sys.argv[4] if len(sys.argv) == 5 else "\n// tampered with after the wheel was built\n").encode()
    with zipfile.ZipFile(src) as z:
        target = z.getinfo(member)
        data = z.read(member) + text
        infos = sorted(z.infolist(), key=lambda i: i.header_offset)
        start_dir = z.start_dir
    if target.flag_bits & 0x08 or target.compress_type != zipfile.ZIP_DEFLATED:
        sys.exit(f"{member}: expected a deflated member without a data descriptor")
    after = next((i.header_offset for i in infos if i.header_offset > target.header_offset), start_dir)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = deflate.compress(data) + deflate.flush()
    crc = zlib.crc32(data)

    with open(src, "rb") as f:
        whole_size = os.fstat(f.fileno()).st_size
        f.seek(whole_size - END.size)
        end = list(END.unpack(f.read(END.size)))
        if end[0] != 0x06054B50 or end[7] != 0 or end[6] != start_dir or end[6] == 0xFFFFFFFF:
            sys.exit(f"{src}: expected a classic end record without comment right at the end")
        f.seek(target.header_offset)
        local = list(LOCAL.unpack(f.read(LOCAL.size)))
        name_and_extra = f.read(local[9] + local[10])
        local[6], local[7], local[8] = crc, len(packed), len(data)
        record = LOCAL.pack(*local) + name_and_extra + packed
        delta = len(record) - (after - target.header_offset)

        f.seek(start_dir)
        directory = bytearray(f.read(end[5]))
        at = 0
        while at < len(directory):
            fields = list(CENTRAL.unpack_from(directory, at))
            name = bytes(directory[at + CENTRAL.size:at + CENTRAL.size + fields[10]]).decode("utf-8", "replace")
            if name == member:
                fields[7], fields[8], fields[9] = crc, len(packed), len(data)
            if fields[16] > target.header_offset:
                fields[16] += delta
            CENTRAL.pack_into(directory, at, *fields)
            at += CENTRAL.size + fields[10] + fields[11] + fields[12]
        end[6] += delta

        tmp = f"{dst}.{os.getpid()}.tmp"
        with open(tmp, "wb") as out:
            f.seek(0)
            copy(f, out, target.header_offset)
            out.write(record)
            f.seek(after)
            copy(f, out, start_dir - after)
            out.write(directory)
            out.write(END.pack(*end))
        os.replace(tmp, dst)
    with zipfile.ZipFile(dst) as z:  # proof of the change, and that the members after it moved right
        moved = [i.filename for i in infos if i.header_offset > target.header_offset][:1] + [infos[-1].filename]
        if z.read(member) != data or any(z.read(name) is None for name in moved):
            sys.exit(f"{dst}: not written right")


def copy(src, dst, count):
    while count > 0:
        block = src.read(min(count, 1 << 20))
        if not block:
            sys.exit("unexpected end of file")
        dst.write(block)
        count -= len(block)


if __name__ == "__main__":
    main()
