#!/bin/sh
# Records this machine's system libraries as an opkit profile (schema
# opkit.profile/1), the same JSON `opkit profile capture` writes, for a target
# opkit itself cannot run on (CentOS 7: glibc 2.17). Made by `opkit profile script`.
#
#   sh capture.sh [--name NAME] [--lib PATH]... > profile.json
#   opkit check LIB --tf V --profile profile.json      (back on the build machine)
#
# It records libc, libm, libpthread, libdl, librt, libstdc++, libgcc_s and the
# loader, found where opkit looks, after each --lib library (the framework's:
# a system library of a soname given there is not recorded twice), and the CPU's flags from
# /proc/cpuinfo (what opkit check holds load-time code to). It runs nothing but Python
# (2.7 or 3.x, the standard library only): python3, then python, then python2
# on PATH, or the interpreter named by OPKIT_PYTHON. The libraries are read as
# files (their ELF headers, dynamic symbols and symbol versions), never loaded.
# Exit codes as opkit's: 0 written, 2 bad input (an argument, a library that is
# not a readable ELF shared object), 3 no Python, 4 the system failed (I/O).
# Errors are one line on stderr and leave stdout empty.

if [ -n "${OPKIT_PYTHON:-}" ]; then
  opkit_python=$OPKIT_PYTHON
  if ! command -v "$opkit_python" >/dev/null 2>&1; then
    echo "opkit: error: OPKIT_PYTHON=$opkit_python: no such interpreter" >&2
    exit 3
  fi
else
  opkit_python=
  for candidate in python3 python python2; do
    if command -v "$candidate" >/dev/null 2>&1; then
      opkit_python=$candidate
      break
    fi
  done
  if [ -z "$opkit_python" ]; then
    echo "opkit: error: no Python on PATH (looked for python3, python, python2; OPKIT_PYTHON names one)" >&2
    exit 3
  fi
fi

# -B writes no bytecode, -E ignores PYTHON* variables, -S skips site (no .pth
# files): only the standard library runs. The program comes on stdin.
exec "$opkit_python" -B -E -S - "$@" <<'OPKIT_PYTHON_PROGRAM'
import sys

EXIT_USAGE = 2
EXIT_MISSING = 3
EXIT_SYSTEM = 4

if sys.version_info < (2, 7):
    sys.stderr.write("opkit: error: %s: Python %d.%d is too old (2.7 or 3.x needed; OPKIT_PYTHON names another)\n"
                     % (sys.executable, sys.version_info[0], sys.version_info[1]))
    sys.exit(EXIT_MISSING)

import errno
import json
import os
import stat
import struct
from collections import OrderedDict

USAGE = "usage: sh capture.sh [--name NAME] [--lib PATH]... > profile.json"

# As src/opkit/check/profile.cpp: k_system_sonames and host_search_paths().
SYSTEM_SONAMES = ["libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2",
                  "librt.so.1", "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"]
SEARCH_PATHS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]

ELFCLASS32, ELFCLASS64 = 1, 2
ELFDATA2LSB, ELFDATA2MSB = 1, 2
EV_CURRENT = 1
ET_REL, ET_EXEC, ET_DYN, ET_CORE = 1, 2, 3, 4
MACHINES = {62: "x86_64", 183: "aarch64"}
SHT_STRTAB, SHT_DYNAMIC, SHT_DYNSYM = 3, 6, 11
SHT_GNU_VERDEF, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 0x6ffffffd, 0x6ffffffe, 0x6fffffff
SHF_COMPRESSED = 0x800
DT_NULL, DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 14, 15, 29
VER_FLG_BASE = 1
VERSYM_HIDDEN, VERSYM_INDEX = 0x8000, 0x7fff
FIRST_REAL_VERSION = 2  # 0 is local, 1 the file's base version: neither names a version
STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 1, 2, 10
SHN_UNDEF = 0
INT_MAX = 2147483647

# Elf64 records, little-endian.
EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
DYN = struct.Struct("<qQ")
SYM = struct.Struct("<IBBHQQ")
HALF = struct.Struct("<H")
VERDEF = struct.Struct("<HHHHIII")
VERDAUX = struct.Struct("<II")
VERNEED = struct.Struct("<HHIII")
VERNAUX = struct.Struct("<IHHII")
# The whole entries a section of each type must hold (libelf's rule; version
# definitions are records of two sizes).
ENTRY_SIZES = {SHT_DYNAMIC: DYN.size, SHT_DYNSYM: SYM.size, SHT_GNU_VERSYM: HALF.size, SHT_GNU_VERDEF: 1,
               SHT_GNU_VERNEED: VERNEED.size}
MIN_VERSION_RECORD = 8  # Elf64_Verdaux: a section holds no more records than size / 8


class Failure(Exception):
    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def malformed(name, cause):
    raise Failure(EXIT_USAGE, "%s: truncated or malformed ELF: %s" % (name, cause))


def text(value):
    """A path or an ELF string as JSON text (UTF-8, as opkit writes it)."""
    if not isinstance(value, bytes):  # Python 3 text: arguments and paths, undecodable bytes escaped
        value = os.fsencode(value)
    return value.decode("utf-8", "replace")


class Section(object):
    def __init__(self, index, header):
        (_name, self.type, self.flags, _addr, self.offset, self.size, self.link, self.info, _align, _entsize) = header
        self.index = index


class ElfReader(object):
    """The dynamic view of a 64-bit little-endian shared object, as check/elf_file.cpp reads it.
    Every offset is checked against the file before it is read."""

    def __init__(self, data, name):
        self.data = data
        self.name = name
        self.sections = []
        self.strtabs = {}

    def check_ident(self):
        data, name = self.data, self.name
        if len(data) < 4 or data[:4] != b"\x7fELF":
            raise Failure(EXIT_USAGE, "%s: not an ELF file" % name)
        if len(data) < 16:
            malformed(name, "file is shorter than the ELF identification")
        elf_class, encoding, version = struct.unpack_from("<BBB", data, 4)
        if elf_class == ELFCLASS32:
            raise Failure(EXIT_USAGE, "%s: 32-bit ELF is not supported" % name)
        if elf_class != ELFCLASS64:
            malformed(name, "unknown ELF class %d" % elf_class)
        if encoding == ELFDATA2MSB:
            raise Failure(EXIT_USAGE, "%s: big-endian ELF is not supported" % name)
        if encoding != ELFDATA2LSB:
            malformed(name, "unknown ELF data encoding %d" % encoding)
        if version != EV_CURRENT:
            raise Failure(EXIT_USAGE, "%s: not an ELF file (ELF version %d)" % (name, version))
        if len(data) < EHDR.size:
            malformed(name, "file is shorter than the ELF header")

    def check_header(self):
        header = EHDR.unpack_from(self.data, 0)
        e_type, e_machine = header[1], header[2]
        if e_type != ET_DYN:
            kinds = {ET_EXEC: "an executable", ET_REL: "a relocatable object (.o)", ET_CORE: "a core dump"}
            kind = kinds.get(e_type, "an ELF file of type %d" % e_type)
            raise Failure(EXIT_USAGE, "%s: %s, not a shared library" % (self.name, kind))
        if e_machine not in MACHINES:
            raise Failure(EXIT_USAGE, "%s: unsupported machine %d (only x86_64 and aarch64)" % (self.name, e_machine))
        return header

    def read_section_headers(self, header):
        e_shoff, e_shentsize, e_shnum = header[6], header[11], header[12]
        size = len(self.data)
        count = e_shnum
        if count == 0 and e_shoff != 0:
            # More than 0xff00 sections: the count is section 0's sh_size.
            if e_shoff > size or size - e_shoff < SHDR.size:
                malformed(self.name, "section header table extends past the end of the file")
            count = SHDR.unpack_from(self.data, e_shoff)[5]
        if count == 0:
            return
        if e_shentsize != SHDR.size:
            malformed(self.name, "unexpected section header size %d" % e_shentsize)
        if e_shoff > size or (size - e_shoff) // SHDR.size < count:
            malformed(self.name, "section header table extends past the end of the file")
        index = 0
        while index < count:
            self.sections.append(Section(index, SHDR.unpack_from(self.data, e_shoff + index * SHDR.size)))
            index += 1

    def inside(self, section):
        return section.offset <= len(self.data) and len(self.data) - section.offset >= section.size

    def find_sections(self):
        """The first section of each type the reader follows (linkers emit one each)."""
        found = {}
        for section in self.sections[1:]:
            if section.type not in (SHT_DYNAMIC, SHT_DYNSYM, SHT_GNU_VERSYM, SHT_GNU_VERDEF, SHT_GNU_VERNEED):
                continue
            if section.type in found:
                continue
            if section.flags & SHF_COMPRESSED:
                malformed(self.name, "section %d is compressed" % section.index)
            if section.size % ENTRY_SIZES[section.type] != 0:
                malformed(self.name, "section %d holds a partial entry" % section.index)
            if not self.inside(section):
                malformed(self.name, "section %d lies outside the file" % section.index)
            found[section.type] = section
        return found

    def string_at(self, strtab, offset):
        """The NUL-terminated string at `offset` in string table section `strtab`."""
        section = self.sections[strtab] if strtab < len(self.sections) else None
        if (section is None or section.type != SHT_STRTAB or section.flags & SHF_COMPRESSED or not self.inside(section)
                or offset >= section.size):
            malformed(self.name, "bad string offset %d in section %d" % (offset, strtab))
        start = section.offset + offset
        end = self.data.find(b"\0", start, section.offset + section.size)
        if end < 0:
            malformed(self.name, "bad string offset %d in section %d" % (offset, strtab))
        return self.data[start:end]

    def read_dynamic(self, dynamic):
        soname = None
        index = 0
        count = dynamic.size // DYN.size
        while index < count:
            tag, value = DYN.unpack_from(self.data, dynamic.offset + index * DYN.size)
            index += 1
            if tag == DT_NULL:
                break
            if tag in (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH):
                string = self.string_at(dynamic.link, value)
                if tag == DT_SONAME:
                    soname = string
        return soname

    def record(self, walker, layout, offset):
        if offset + layout.size > walker["section"].size:
            malformed(self.name, "version record outside its section")
        return layout.unpack_from(self.data, walker["section"].offset + offset)

    def walk(self, walker, offset):
        """Checks a version record's offset; a budget of records stops chains that loop."""
        if walker["budget"] == 0:
            malformed(self.name, "version records loop or overlap")
        walker["budget"] -= 1
        if offset > walker["section"].size or offset > INT_MAX:
            malformed(self.name, "version record outside its section")
        if offset % 4 != 0:
            malformed(self.name, "misaligned version record")
        return offset

    def walker(self, section):
        return {"section": section, "budget": section.size // MIN_VERSION_RECORD + 1}

    def read_version_definitions(self, verdef, names):
        definitions = []
        walker = self.walker(verdef)
        offset = 0
        index = 0
        while index < verdef.info:  # sh_info holds the number of entries
            (_version, flags, ndx, cnt, _hash, aux, next_offset) = self.record(walker, VERDEF,
                                                                               self.walk(walker, offset))
            if cnt != 0:
                # Only the first auxiliary entry names the definition; the others name parents.
                name = self.record(walker, VERDAUX, self.walk(walker, offset + aux))[0]
                version = self.string_at(verdef.link, name)
                if not flags & VER_FLG_BASE:  # the base entry is the file's own name
                    definitions.append(version)
                names[ndx & VERSYM_INDEX] = version
            if next_offset == 0:
                break
            offset += next_offset
            index += 1
        return definitions

    def read_version_needs(self, verneed, names):
        walker = self.walker(verneed)
        offset = 0
        index = 0
        while index < verneed.info:
            (_version, cnt, file_name, aux, next_offset) = self.record(walker, VERNEED, self.walk(walker, offset))
            self.string_at(verneed.link, file_name)
            aux_offset = offset + aux
            done = 0
            while done < cnt:
                (_hash, _flags, other, name, next_aux) = self.record(walker, VERNAUX, self.walk(walker, aux_offset))
                names[other & VERSYM_INDEX] = self.string_at(verneed.link, name)
                if next_aux == 0:
                    break
                aux_offset += next_aux
                done += 1
            if next_offset == 0:
                break
            offset += next_offset
            index += 1

    def read_exports(self, dynsym, versym, names):
        """The defined global and weak symbols, in .dynsym order: [name, version, hidden]."""
        exports = []
        count = dynsym.size // SYM.size
        if versym is not None and versym.size // HALF.size < count:
            malformed(self.name, ".gnu.version has fewer entries than .dynsym")
        index = 1  # 0 is the reserved null symbol
        while index < count:
            (st_name, st_info, _other, st_shndx, _value, _size) = SYM.unpack_from(self.data,
                                                                                 dynsym.offset + index * SYM.size)
            name = self.string_at(dynsym.link, st_name)
            binding = st_info >> 4
            version = b""
            hidden = False
            if versym is not None:
                entry = HALF.unpack_from(self.data, versym.offset + index * HALF.size)[0]
                hidden = (entry & VERSYM_HIDDEN) != 0
                version_index = entry & VERSYM_INDEX
                if version_index >= FIRST_REAL_VERSION:
                    if version_index not in names:
                        malformed(self.name, "symbol %d has undefined version index %d" % (index, version_index))
                    version = names[version_index]
            if st_shndx != SHN_UNDEF and binding in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE):
                exports.append([text(name), text(version), hidden])
            index += 1
        return exports

    def read(self):
        self.check_ident()
        self.read_section_headers(self.check_header())
        found = self.find_sections()
        if SHT_DYNAMIC not in found:
            malformed(self.name, "no .dynamic section")
        soname = self.read_dynamic(found[SHT_DYNAMIC])
        names = {}
        definitions = []
        if SHT_GNU_VERDEF in found:
            definitions = self.read_version_definitions(found[SHT_GNU_VERDEF], names)
        if SHT_GNU_VERNEED in found:
            self.read_version_needs(found[SHT_GNU_VERNEED], names)
        exports = []
        if SHT_DYNSYM in found:
            exports = self.read_exports(found[SHT_DYNSYM], found.get(SHT_GNU_VERSYM), names)
        return soname, definitions, exports


def read_file(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        # A --lib that names nothing is the caller's mistake (exit 2), as opkit's own capture says.
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            raise Failure(EXIT_USAGE, "%s: no such library" % path)
        if error.errno == errno.ELOOP:
            raise Failure(EXIT_USAGE, "%s: a loop of symbolic links" % path)
        raise Failure(EXIT_SYSTEM, "%s: cannot read: %s" % (path, error.strerror))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Failure(EXIT_USAGE, "%s: not a regular file" % path)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise Failure(EXIT_SYSTEM, "%s: cannot read: %s" % (path, error.strerror))
    finally:
        os.close(fd)


def library_json(path):
    """As library_from_elf and library_json in profile.cpp: `path` as given, read where its links lead."""
    real = os.path.realpath(path)
    try:
        soname, definitions, exports = ElfReader(read_file(real), real).read()
    except struct.error as error:
        malformed(real, str(error))
    soname = text(soname) if soname else text(os.path.basename(path))
    return OrderedDict([
        ("soname", soname),
        ("path", text(path)),
        ("framework", soname.startswith("libtensorflow_framework")),
        ("symbols_known", True),
        ("versions", [text(version) for version in definitions]),
        ("ceilings", OrderedDict()),
        ("extra_versions", []),
        ("symbols", exports),
    ])


def system_library_paths():
    paths = []
    for soname in SYSTEM_SONAMES:
        for folder in SEARCH_PATHS:
            candidate = folder + "/" + soname
            if os.path.exists(candidate):
                paths.append(candidate)
                break
    return paths


def parse_arguments(arguments):
    name = "captured"
    libraries = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument in ("-h", "--help"):
            return None, None
        option, value = argument, None
        if argument.startswith("--") and "=" in argument:
            option, value = argument.split("=", 1)
        if option not in ("--name", "--lib"):
            raise Failure(EXIT_USAGE, "%s: unknown argument (%s)" % (argument, USAGE))
        if value is None:
            if index == len(arguments):
                raise Failure(EXIT_USAGE, "%s: needs a value (%s)" % (option, USAGE))
            value = arguments[index]
            index += 1
        if option == "--name":
            name = value
        else:
            libraries.append(value)
    return name, libraries


def cpu_json():
    """The CPU as /proc/cpuinfo names it (its first processor), as opkit's capture records it; None when unreadable."""
    flags, model = None, ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, colon, value = line.partition(":")
                if not colon:
                    continue
                key, value = key.strip(), value.strip()
                if key == "flags" and flags is None:
                    flags = [flag for flag in value.split(" ") if flag]
                elif key == "model name" and not model:
                    model = value
    except (IOError, OSError):
        return None
    if not flags:
        return None
    return OrderedDict([("baseline", ""), ("model", text(model)), ("flags", flags)])


def main(arguments):
    name, libraries = parse_arguments(arguments)
    if name is None:
        sys.stdout.write(USAGE + "\n")
        return 0
    # The libraries named first (the framework's), then the system's, less
    # those whose soname a named one has: as opkit's own capture.
    captured = [library_json(path) for path in libraries]
    for path in system_library_paths():
        library = library_json(path)
        if library["soname"] not in [known["soname"] for known in captured]:
            captured.append(library)
    profile = OrderedDict([
        ("schema", "opkit.profile/1"),
        ("name", text(name)),
        ("description", "%d libraries captured" % len(captured)),
        ("search_paths", SEARCH_PATHS),
        ("libraries", captured),
    ])
    cpu = cpu_json()
    if cpu is not None:
        profile["cpu"] = cpu
    output = json.dumps(profile, separators=(",", ":")) + "\n"
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except (IOError, OSError) as error:
        raise Failure(EXIT_SYSTEM, "standard output: cannot write: %s" % error.strerror)
    return 0


try:
    sys.exit(main(sys.argv[1:]))
except Failure as failure:
    sys.stderr.write("opkit: error: %s\n" % failure)
    sys.exit(failure.code)
except MemoryError:
    sys.stderr.write("opkit: error: out of memory\n")
    sys.exit(EXIT_SYSTEM)
OPKIT_PYTHON_PROGRAM
