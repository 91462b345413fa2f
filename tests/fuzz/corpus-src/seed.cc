// Source of tests/fuzz/corpus/seed-x86_64.so, the one real shared library in
// the ELF reader's seed corpus (tests/fuzz/README.md has the exact commands).
// It is kept tiny but covers everything read_elf_bytes reads:
//   DT_SONAME, DT_NEEDED (libstdc++, libc), DT_RUNPATH;
//   .gnu.version_d with two versions from seed.map (SEED_1.0, SEED_2.0);
//   a default (seed_add@@SEED_2.0) and a hidden (seed_add@SEED_1.0) version;
//   .gnu.version_r needs from libstdc++ (GLIBCXX_*, CXXABI_*) and libc (GLIBC_*);
//   defined, undefined, weak, function and object symbols.
#include <cstdio>
#include <stdexcept>
#include <string>

extern "C" {

// An exported object symbol.
int seed_counter = 0;

// A weak definition.
__attribute__((weak)) int
seed_weak(int x)
{
  return x + 1;
}

// Two versions of one symbol: the old one is hidden (foo@VER), the new one is
// the default (foo@@VER).
int
seed_add_v1(int a, int b)
{
  return a + b;
}
__asm__(".symver seed_add_v1, seed_add@SEED_1.0");

int
seed_add_v2(int a, int b)
{
  ++seed_counter;
  return a + b;
}
__asm__(".symver seed_add_v2, seed_add@@SEED_2.0");

} // extern "C"

// A C++ symbol that pulls versioned needs from libstdc++ (std::string, a throw).
std::size_t
seed_length(const std::string& text)
{
  if (text.empty()) {
    throw std::invalid_argument("seed_length: empty");
  }
  std::puts(text.c_str());
  return text.size();
}
