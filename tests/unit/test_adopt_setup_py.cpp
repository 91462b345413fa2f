// adopt/setup_py.cpp: setup.py read as a (bounded) program, through read_build_description.

#include "opkit/adopt/build_files.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;
using adopt::BuildDescription;
using adopt::DeclaredLibrary;
using Strings = std::vector<std::string>;

namespace {

BuildDescription
read_setup(const std::string& path, const std::string& text, Strings files)
{
  files.push_back(path);
  std::sort(files.begin(), files.end());
  return adopt::read_build_description({}, {{path, text}}, files);
}

const DeclaredLibrary*
find(const BuildDescription& description, const std::string& output)
{
  auto found = std::find_if(description.libraries.begin(), description.libraries.end(),
                            [&](const DeclaredLibrary& library) { return library.output == output; });
  return found == description.libraries.end() ? nullptr : &*found;
}

std::string
notes_of(const BuildDescription& description)
{
  std::string all;
  for (const std::string& note : description.notes) {
    all += note + "\n";
  }
  return all;
}

bool
has_note(const BuildDescription& description, const std::string& part)
{
  return notes_of(description).find(part) != std::string::npos;
}

// Shaped as the PyTorch C++/CUDA extension example is (written here, not copied).
const char* const k_example = R"(import glob
import os

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

library_name = "opsample"


def get_extensions():
    debug_mode = os.getenv("DEBUG", "0") == "1"
    use_cuda = os.getenv("USE_CUDA", "1") == "1" and torch.cuda.is_available() and CUDA_HOME is not None
    extension = CUDAExtension if use_cuda else CppExtension
    extra_compile_args = {"cxx": ["-O3" if not debug_mode else "-O0"], "nvcc": ["-O3"]}
    this_dir = os.path.dirname(os.path.curdir)
    extensions_dir = os.path.join(this_dir, library_name, "csrc")
    sources = list(glob.glob(os.path.join(extensions_dir, "*.cpp")))
    extensions_cuda_dir = os.path.join(extensions_dir, "cuda")
    cuda_sources = list(glob.glob(os.path.join(extensions_cuda_dir, "*.cu")))
    if use_cuda:
        sources += cuda_sources
        sources += [os.path.join(extensions_cuda_dir, "binding.cpp")]
    return [
        extension(
            f"{library_name}._C",
            sources,
            extra_compile_args=extra_compile_args,
            py_limited_api=True,
        )
    ]


setup(
    name=library_name,
    version="0.0.1",
    packages=find_packages(),
    ext_modules=get_extensions(),
    cmdclass={"build_ext": BuildExtension},
)
)";

const Strings k_example_files = {"opsample/__init__.py",          "opsample/csrc/muladd.cpp",
                                 "opsample/csrc/util.cpp",        "opsample/csrc/util.h",
                                 "opsample/csrc/cuda/muladd.cu",  "opsample/csrc/cuda/binding.cpp",
                                 "opsample/csrc/cuda/old/skip.cu"};

} // namespace

TEST(AdoptSetupPy, ReadsTheExtensionExampleShape)
{
  BuildDescription description = read_setup("setup.py", k_example, k_example_files);
  ASSERT_EQ(description.libraries.size(), 1u) << notes_of(description);
  const DeclaredLibrary& library = description.libraries[0];
  EXPECT_EQ(library.output, "_C.so");
  EXPECT_EQ(library.python_module, "opsample._C");
  EXPECT_EQ(library.origin(), "setup.py:25 extension (CUDAExtension or CppExtension) \"_C.so\"");
  EXPECT_EQ(library.sources, (Strings{"opsample/csrc/muladd.cpp", "opsample/csrc/util.cpp"}));
  // Under `if use_cuda:`, the condition choosing CUDAExtension: a CUDA build's alone (not the old/ folder's .cu).
  EXPECT_EQ(library.gpu_sources, (Strings{"opsample/csrc/cuda/muladd.cu", "opsample/csrc/cuda/binding.cpp"}));
  EXPECT_TRUE(description.notes.empty()) << notes_of(description);
}

TEST(AdoptSetupPy, ASetupPyInASubfolderGlobsRelativeToItsFolder)
{
  std::string setup = R"(
from glob import glob
import os.path as osp
from torch.utils.cpp_extension import CppExtension
here = osp.abspath(osp.dirname(__file__))
ext_modules = [
    CppExtension("pkg._ops", sorted(glob(osp.join(here, "src", "**", "*.cpp"), recursive=True))),
    CppExtension("pkg._flat", glob(osp.join(here, "src", "**", "*.cpp"))),
    CppExtension("pkg._shared", glob("../common/*.cc") + ["../../outside.cc"]),
    CppExtension("pkg._escape", glob("../../*.cc") + glob("/usr/src/*.cc")),
]
)";
  BuildDescription description = read_setup(
    "py/setup.py", setup, {"py/src/a.cpp", "py/src/deep/b.cpp", "py/src/deep/er/c.cpp", "common/x.cc", "top.cc"});
  const DeclaredLibrary* ops = find(description, "_ops.so");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->sources, (Strings{"py/src/a.cpp", "py/src/deep/b.cpp", "py/src/deep/er/c.cpp"}));
  const DeclaredLibrary* flat = find(description, "_flat.so");
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(flat->sources, (Strings{"py/src/deep/b.cpp"})); // `**` is `*` unless recursive=True
  const DeclaredLibrary* shared = find(description, "_shared.so");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->sources, (Strings{"common/x.cc"}));
  EXPECT_TRUE(has_note(description, "py/setup.py:9: \"../../outside.cc\" is not a file of the tree"));
  ASSERT_NE(find(description, "_escape.so"), nullptr);
  EXPECT_TRUE(find(description, "_escape.so")->sources.empty()); // ../../ from py/ is above the tree's root
  EXPECT_TRUE(has_note(description, "py/setup.py:10: glob(\"../../*.cc\") looks outside the tree"));
  EXPECT_TRUE(has_note(description, "py/setup.py:10: glob(\"/usr/src/*.cc\") looks outside the tree"));
}

TEST(AdoptSetupPy, NamesFromFormatsAndConstantsAndNotesWhatItCannotRead)
{
  std::string setup = R"(
from torch.utils.cpp_extension import CppExtension
NAME = "kit"
def extensions():
    suffix = "ops"
    return [
        CppExtension("%s._pct_%s" % (NAME, suffix), ["a.cpp"]),
        CppExtension(NAME + "._plus", ["a.cpp"]),
        CppExtension(f"{NAME}._{suffix}_{{x}}", ["a.cpp"]),
        CppExtension(f"{NAME}._{version}", ["a.cpp"]),
        CppExtension(prefix + "._p", ["a.cpp"]),
        CppExtension("kit._srcs", SOURCES),
        CppExtension("kit._items", ["a.cpp", f"{gen}.cpp"]),
    ]
)";
  BuildDescription description = read_setup("setup.py", setup, {"a.cpp"});
  ASSERT_NE(find(description, "_pct_ops.so"), nullptr) << notes_of(description);
  EXPECT_EQ(find(description, "_pct_ops.so")->python_module, "kit._pct_ops");
  ASSERT_NE(find(description, "_plus.so"), nullptr);
  ASSERT_NE(find(description, "_ops_{x}.so"), nullptr); // {{ }} are braces
  EXPECT_TRUE(has_note(description, "setup.py:10: CppExtension(...): its name is not a string opkit can read (an "
                                    "f-string with {version}) (skipped)"))
    << notes_of(description);
  EXPECT_TRUE(has_note(description, "setup.py:11: CppExtension(...): its name is not a string opkit can read (prefix "
                                    "is no name opkit read)"));
  EXPECT_TRUE(has_note(description, "setup.py:12: CppExtension(...) of kit._srcs: its sources are not a list"));
  ASSERT_NE(find(description, "_items.so"), nullptr);
  EXPECT_EQ(find(description, "_items.so")->sources, (Strings{"a.cpp"}));
  EXPECT_TRUE(has_note(description, "setup.py:13: a source of _items opkit cannot read (an f-string with {gen})"));
  EXPECT_EQ(description.libraries.size(), 4u);
}

TEST(AdoptSetupPy, ClassesChosenByIfElseAndTheirCudaSides)
{
  std::string setup = R"(
import torch
from torch.utils import cpp_extension
sources = ["ops.cpp"]
if torch.cuda.is_available():
    Ext = cpp_extension.CUDAExtension
    sources.append("ops_gpu.cpp")
    sources.extend(["kernels.cu"])
else:
    Ext = cpp_extension.CppExtension
    sources += ["ops_cpu_only.cpp"]
one = Ext("m._a", sources)
build = CppExtension if not torch.cuda.is_available() else CUDAExtension
two = build("m._b", ["ops.cpp"] + (["ops_gpu.cpp"] if not torch.cuda.is_available() else []))
same = Extension if torch.cuda.is_available() else Extension
three = same("m._c", ["ops.cpp"])
)";
  BuildDescription description =
    read_setup("setup.py", setup, {"ops.cpp", "ops_gpu.cpp", "kernels.cu", "ops_cpu_only.cpp"});
  const DeclaredLibrary* a = find(description, "_a.so");
  ASSERT_NE(a, nullptr) << notes_of(description);
  EXPECT_EQ(a->rule, "Ext (CUDAExtension or CppExtension)");
  EXPECT_EQ(a->sources, (Strings{"ops.cpp", "ops_cpu_only.cpp"}));
  EXPECT_EQ(a->gpu_sources, (Strings{"ops_gpu.cpp", "kernels.cu"}));
  const DeclaredLibrary* b = find(description, "_b.so");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rule, "build (CppExtension or CUDAExtension)");
  // The choice's CUDA side is `torch.cuda.is_available()`: the inner choice's list is the CPU build's.
  EXPECT_EQ(b->sources, (Strings{"ops.cpp", "ops_gpu.cpp"}));
  const DeclaredLibrary* c = find(description, "_c.so");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->rule, "same (Extension or Extension)");
  EXPECT_EQ(c->sources, (Strings{"ops.cpp"}));
  EXPECT_TRUE(c->gpu_sources.empty());
}

TEST(AdoptSetupPy, AClassOpkitCannotReadIsANoteNamingItsLine)
{
  std::string setup = R"(
from torch.utils.cpp_extension import CppExtension, CUDAExtension
kinds = {"cuda": CUDAExtension, "cpu": CppExtension}
extension = kinds[BACKEND] if BACKEND else {"cuda": CUDAExtension}["cuda"]

modules = [extension("m._x", ["x.cpp"])]
)";
  BuildDescription description = read_setup("setup.py", setup, {"x.cpp"});
  EXPECT_TRUE(description.libraries.empty());
  EXPECT_TRUE(has_note(description, "note: setup.py:4: the class extension calls is chosen by `kinds[BACKEND] if "
                                    "BACKEND else {\"cuda\": CUDAExtension}[\"cuda\"]`, which opkit cannot read "
                                    "(extension(...) on line 6: skipped)"))
    << notes_of(description);
}

TEST(AdoptSetupPy, GlobsAreBoundedByTheTreeTheValuesAndTheSources)
{
  Strings files;
  for (int i = 0; i < 3000; ++i) {
    files.push_back("src/f" + std::to_string(10000 + i) + ".cpp");
  }
  BuildDescription description =
    read_setup("setup.py", "ext = CppExtension('m._big', glob.glob('src/*.cpp'))\n", files);
  ASSERT_EQ(description.libraries.size(), 1u);
  EXPECT_EQ(description.libraries[0].sources.size(), 3000u);

  for (int i = 3000; i < 10001; ++i) {
    files.push_back("src/f" + std::to_string(10000 + i) + ".cpp");
  }
  try {
    read_setup("setup.py", "\next = CppExtension('m._big', glob.glob('src/*.cpp'))\n", files);
    FAIL() << "a library of 10001 sources was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("setup.py:2: a library of more than 10000 sources", 0), 0U) << e.what();
  }
  // Each `+=` of a glob copies its 10 001 matches twice: ten pass the values one setup.py may make.
  std::string many = "S = []\n";
  for (int i = 0; i < 30; ++i) {
    many += "S += glob.glob('src/*.cpp')\n";
  }
  try {
    read_setup("setup.py", many, files);
    FAIL() << "300 000 values were made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the lists here expand to more than 200000 values"), std::string::npos)
      << e.what();
  }
}

TEST(AdoptSetupPy, HostileShapesStayBounded)
{
  std::string chain = "E = ";
  for (int i = 0; i < 20000; ++i) {
    chain += "CUDAExtension if c" + std::to_string(i) + " else ";
  }
  chain += "CppExtension\nE('m._chain', ['a.cpp'])\n";
  BuildDescription description = read_setup("setup.py", chain, {"a.cpp"});
  ASSERT_EQ(description.libraries.size(), 1u); // the chain's first choice is read, the rest past the depth is not
  EXPECT_EQ(description.libraries[0].sources, (Strings{"a.cpp"}));

  std::string nested = "S = ['a.cpp']\n";
  for (int i = 0; i < 1000; ++i) {
    nested += std::string(static_cast<size_t>(i), ' ') + "if c" + std::to_string(i) + ":\n";
  }
  nested += std::string(1000, ' ') + "S += ['b.cu']\nCppExtension('m._deep', S)\n";
  description = read_setup("setup.py", nested, {"a.cpp", "b.cu"});
  ASSERT_EQ(description.libraries.size(), 1u);
  EXPECT_EQ(description.libraries[0].gpu_sources, (Strings{"b.cu"}));

  std::string doubled = "N = 'x'\n";
  for (int i = 0; i < 64; ++i) {
    doubled += "N = N + N\n";
  }
  doubled += "CppExtension(N, ['a.cpp'])\nCppExtension(f'{N}{N}', ['a.cpp'])\n";
  description = read_setup("setup.py", doubled, {"a.cpp"});
  EXPECT_TRUE(description.libraries.empty());
  EXPECT_TRUE(has_note(description, "setup.py:66: CppExtension(...): its name is not a string opkit can read (a "
                                    "string longer than 65536 characters)"))
    << notes_of(description);
  EXPECT_TRUE(has_note(description, "setup.py:67: CppExtension(...): its name is not a string opkit can read (an "
                                    "f-string with {N})"));
}

TEST(AdoptSetupPy, AClassReassignedUnderACudaConditionSplitsTheSources)
{
  std::string setup = R"(
from os import path
def get_extensions():
    here = path.dirname(path.abspath(__file__))
    csrc = path.join(here, "lib", "csrc")
    sources = [path.join(csrc, "vision.cpp")] + glob.glob(path.join(csrc, "**", "*.cpp"))
    source_cuda = glob.glob(path.join(csrc, "**", "*.cu"))
    extension = CppExtension
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension
        sources += source_cuda + [path.join(csrc, "cuda_only.cpp")]
    return [extension("lib._C", sources)]
)";
  BuildDescription description =
    read_setup("setup.py", setup,
               {"lib/csrc/vision.cpp", "lib/csrc/box/box.cpp", "lib/csrc/box/box.cu", "lib/csrc/cuda_only.cpp"});
  const DeclaredLibrary* library = find(description, "_C.so");
  ASSERT_NE(library, nullptr) << notes_of(description);
  EXPECT_EQ(library->rule, "extension (CUDAExtension or CppExtension)");
  EXPECT_EQ(library->sources, (Strings{"lib/csrc/vision.cpp", "lib/csrc/box/box.cpp"}));
  EXPECT_EQ(library->gpu_sources, (Strings{"lib/csrc/box/box.cu", "lib/csrc/cuda_only.cpp"}));
}
