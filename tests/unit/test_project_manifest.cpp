#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

using opkit::project::Manifest;
using opkit::project::parse_manifest;

namespace {

const char* k_good = R"(name: zero_out
template: tensorflow-op
op:
  name: ZeroOut
  inputs:
    - name: to_zero
      type: T
  outputs:
    - name: zeroed
      type: T
  attrs:
    - name: T
      type: type
      allowed: [int32, float]
  kernels:
    - device: CPU
sources:
  - src/zero_out_op.cc
targets:
  tensorflow: ["1.12", "2.10.1"]
)";

std::string
error_of(const std::string& text)
{
  try {
    parse_manifest(text, "opkit.yaml", "/p");
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    return e.what();
  }
  return "no error";
}

std::string
replace(std::string text, const std::string& from, const std::string& to)
{
  return text.replace(text.find(from), from.size(), to);
}

} // namespace

TEST(Manifest, EveryDtypeSpellingOfTheRegistryIsNormalisedAsTensorFlowPrintsIt)
{
  // DataTypeFromString reads float32/float64/float16 as float/double/half.
  std::string text = replace(replace(k_good, "[int32, float]", "[int32, float32, float64, float16]"),
                             "    - device: CPU\n", "    - device: CPU\n      constraints: {T: [float32]}\n");
  text = replace(text, "    - name: zeroed\n      type: T", "    - name: zeroed\n      type: float64");
  Manifest manifest = parse_manifest(text, "opkit.yaml", "/p");
  const opkit::project::OpSpec& op = manifest.libraries[0].ops[0];
  EXPECT_EQ(op.attrs[0].allowed, (std::vector<std::string>{"int32", "float", "double", "half"}));
  EXPECT_EQ(op.outputs[0].type, "double");
  EXPECT_EQ(op.kernels[0].constraints[0].second, (std::vector<std::string>{"float"}));
  EXPECT_EQ(error_of(replace(k_good, "[int32, float]", "[int32, float128]")),
            "opkit.yaml:14:16: unknown dtype 'float128'");
}

TEST(Manifest, ParsesTheTemplateShape)
{
  Manifest m = parse_manifest(k_good, "opkit.yaml", "/p");
  EXPECT_EQ(m.name, "zero_out");
  const opkit::project::OpSpec& op = m.primary_op();
  EXPECT_EQ(op.name, "ZeroOut");
  ASSERT_EQ(op.inputs.size(), 1U);
  EXPECT_EQ(op.inputs[0].name, "to_zero");
  EXPECT_EQ(op.inputs[0].type, "T");
  ASSERT_EQ(op.attrs.size(), 1U);
  EXPECT_EQ(op.attrs[0].allowed, (std::vector<std::string>{"int32", "float"}));
  EXPECT_EQ(op.kernels.at(0).device, "CPU");
  ASSERT_EQ(m.libraries.size(), 1U);
  EXPECT_EQ(m.libraries[0].name, "zero_out");
  EXPECT_EQ(m.libraries[0].output, "libzero_out.so");
  EXPECT_EQ(m.libraries[0].settings.at(0).sources, std::vector<std::string>{"src/zero_out_op.cc"});
  EXPECT_EQ(m.target_versions, (std::vector<std::string>{"1.12", "2.10.1"}));
}

TEST(Manifest, SyntaxErrorsCarryLineAndColumn)
{
  EXPECT_EQ(error_of("name: x\nop: [\n"), "opkit.yaml:3:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(error_of("name: x\n  bad: indent\n"), "opkit.yaml:2:6: invalid YAML: illegal map value");
}

TEST(Manifest, RuleErrorsPointAtTheOffendingNode)
{
  EXPECT_EQ(error_of(replace(k_good, "name: ZeroOut", "name: zeroOut")),
            "opkit.yaml:4:9: invalid op name 'zeroOut' (TensorFlow op names are CamelCase, optionally namespaced: "
            "[A-Z][A-Za-z0-9>]*, e.g. Vendor>OpName)");
  EXPECT_EQ(error_of(replace(k_good, "      type: T\n  outputs", "      type: Q\n  outputs")),
            "opkit.yaml:7:13: type 'Q' is neither a dtype nor a type attr of this op");
  EXPECT_EQ(error_of(replace(k_good, "[int32, float]", "[int32, flaot]")),
            "opkit.yaml:14:16: unknown dtype 'flaot' (did you mean float?)");
  EXPECT_EQ(
    error_of(replace(k_good, "sources:", "srcs:")),
    "opkit.yaml:17:1: unknown key 'srcs' (expected one of: name, version, package, template, op, sources, when, "
    "libraries, targets, build, settings)");
  EXPECT_EQ(error_of(replace(k_good, "name: zero_out", "name: ZeroOut")),
            "opkit.yaml:1:7: invalid project name 'ZeroOut': it must be snake_case (did you mean 'zero_out'?)");
  EXPECT_EQ(error_of(replace(k_good, "\"2.10.1\"", "\"2.x\"")), "opkit.yaml:20:15: invalid TensorFlow version '2.x'");
  EXPECT_EQ(error_of(replace(k_good, "src/zero_out_op.cc", "../outside.cc")),
            "opkit.yaml:18:3: source '../outside.cc' must be a path inside the project");
  EXPECT_EQ(error_of(replace(k_good, "      type: type\n", "      type: typ\n")),
            "opkit.yaml:13:13: unknown attr type 'typ' (expected one of: type, int, float, bool, string, shape, "
            "list(type), list(int), list(float), tensor)");
}

TEST(Manifest, MissingPiecesAreNamed)
{
  EXPECT_EQ(error_of("name: zero_out\nsources: [a.cc]\n"),
            "opkit.yaml:1:1: missing required key 'op' (or 'libraries')");
  EXPECT_EQ(error_of("op:\n  name: X\n"), "opkit.yaml:1:1: missing required key 'name'");
  EXPECT_EQ(error_of("- a\n- b\n"), "opkit.yaml:1:1: expected a mapping at the top level");
  EXPECT_EQ(error_of(replace(k_good, "  - src/zero_out_op.cc\n", "")),
            "opkit.yaml:1:1: 'sources' must list at least one file");
}

namespace {

const char* k_libraries = R"(name: acme_ops
build:
  include_dirs: [.]
  cflags: [-O3]
  when:
    - tensorflow: "<2.4"
      defines: [tstring=std::string]
libraries:
  - name: text_ops
    output: _text_ops.so
    sources: [text/a.cc, text/a.h]
    ops:
      - name: HashStrings
        inputs: [{name: keys, type: string}]
        outputs: [{name: hashes, type: int64}]
        attrs: [{name: num_buckets, type: int}]
        kernels: [{device: CPU}]
  - name: resampler
    tensorflow: ">=2.0"
    sources: [resampler/r.cc]
    libs: [gomp]
    when:
      - device: gpu
        sources: [resampler/r.cu.cc]
        defines: [WITH_GPU]
    ops:
      - name: Acme>Resampler
        kernels:
          - device: CPU
            constraints: {T: [float, double]}
          - device: GPU
            constraints: {T: [float]}
)";

} // namespace

TEST(Manifest, SeveralLibrariesWithTheirOwnSettings)
{
  Manifest m = parse_manifest(k_libraries, "opkit.yaml", "/p");
  ASSERT_EQ(m.libraries.size(), 2U);
  EXPECT_EQ(m.libraries[0].output, "_text_ops.so");
  EXPECT_EQ(m.libraries[1].output, "libresampler.so");
  EXPECT_EQ(m.libraries[1].ops.at(0).name, "Acme>Resampler");
  const auto& gpu = m.libraries[1].ops[0].kernels.at(1);
  EXPECT_EQ(gpu.device, "GPU");
  EXPECT_EQ(gpu.constraints, (std::vector<std::pair<std::string, std::vector<std::string>>>{{"T", {"float"}}}));
  EXPECT_FALSE(m.libraries[1].versions.contains(*opkit::project::parse_version("1.12.0")));
  EXPECT_TRUE(m.libraries[1].versions.contains(*opkit::project::parse_version("2.10.1")));

  auto v112 = *opkit::project::parse_version("1.12.0");
  auto v210 = *opkit::project::parse_version("2.10.1");
  auto text112 = opkit::project::resolve_settings("/p", m.settings, m.libraries[0].settings, v112, false);
  EXPECT_EQ(text112.sources, std::vector<std::string>{"text/a.cc"});
  EXPECT_EQ(text112.headers, std::vector<std::string>{"text/a.h"}) << "a listed header is never compiled";
  EXPECT_EQ(text112.defines, std::vector<std::string>{"tstring=std::string"});
  EXPECT_EQ(text112.include_dirs, std::vector<std::filesystem::path>{"/p"});
  EXPECT_EQ(text112.cflags, std::vector<std::string>{"-O3"});
  auto text210 = opkit::project::resolve_settings("/p", m.settings, m.libraries[0].settings, v210, false);
  EXPECT_TRUE(text210.defines.empty()) << "the define is for TF < 2.4 only";
  auto cpu = opkit::project::resolve_settings("/p", m.settings, m.libraries[1].settings, v210, false);
  auto cuda = opkit::project::resolve_settings("/p", m.settings, m.libraries[1].settings, v210, true);
  EXPECT_EQ(cpu.sources, std::vector<std::string>{"resampler/r.cc"});
  EXPECT_EQ(cuda.sources, (std::vector<std::string>{"resampler/r.cc", "resampler/r.cu.cc"}));
  EXPECT_EQ(cuda.defines, std::vector<std::string>{"WITH_GPU"});
  EXPECT_EQ(cuda.libs, std::vector<std::string>{"gomp"});
  EXPECT_EQ(m.select_libraries({"resampler"}).size(), 1U);
}

TEST(Manifest, LibraryErrorsSayWhichNameIsWrongAndWhere)
{
  EXPECT_EQ(error_of(replace(k_libraries, "name: text_ops", "name: Text-Ops")),
            "opkit.yaml:9:11: invalid library name 'Text-Ops': it must be snake_case (did you mean 'text_ops'?)");
  EXPECT_EQ(error_of(replace(k_libraries, "name: HashStrings", "name: hashStrings")),
            "opkit.yaml:13:15: invalid op name 'hashStrings' (TensorFlow op names are CamelCase, optionally "
            "namespaced: [A-Z][A-Za-z0-9>]*, e.g. Vendor>OpName)");
  EXPECT_EQ(error_of(replace(k_libraries, "name: acme_ops", "name: 9acme")),
            "opkit.yaml:1:7: invalid project name '9acme': it must start with a letter");
  EXPECT_EQ(error_of(replace(k_libraries, "\"<2.4\"", "\"<two\"")),
            "opkit.yaml:6:19: invalid version range '<two' (e.g. \"<2.4\" or \">=1.15,<2.4\")");
  EXPECT_EQ(error_of(replace(k_libraries, "device: gpu", "device: tpu")),
            "opkit.yaml:23:17: device must be cpu or gpu (the SDK's build), got 'tpu'");
  EXPECT_EQ(error_of(replace(k_libraries, "defines: [WITH_GPU]", "defines: [-DWITH_GPU]")),
            "opkit.yaml:25:18: define '-DWITH_GPU' must be NAME or NAME=VALUE (without -D)");
  EXPECT_EQ(error_of(replace(k_libraries, "output: _text_ops.so", "output: ../x.so")),
            "opkit.yaml:10:13: output '../x.so' must be a plain file name, e.g. _text_ops_ops.so");
  EXPECT_EQ(error_of(replace(k_libraries, "name: resampler", "name: text_ops")),
            "opkit.yaml:9:3: library name 'text_ops' appears twice");
  EXPECT_EQ(error_of(replace(k_libraries, "{T: [float]}", "{T: [flaot]}")),
            "opkit.yaml:32:30: unknown dtype 'flaot' (did you mean float?)");
  try {
    parse_manifest(k_libraries, "opkit.yaml", "/p").select_libraries({"nope"});
    ADD_FAILURE() << "accepted --lib nope";
  } catch (const opkit::Error& e) {
    EXPECT_STREQ(e.what(), "--lib nope: no such library in /p/opkit.yaml (it has: text_ops, resampler)");
  }
}

TEST(Manifest, BuildValuesWithAControlCharacterAreRefusedWhereTheyAre)
{
  // A newline would end its line of build.ninja.
  struct Case
  {
    const char* text;
    const char* from;
    const char* to;
    const char* error;
  };
  for (const Case& c : {
         Case{k_libraries, "defines: [WITH_GPU]", "defines: [\"NL=a\\nb\"]",
              "opkit.yaml:25:19: define 'NL=a\nb': a build value must be one line without control characters"},
         Case{k_good, "  - src/zero_out_op.cc", "  - \"src/a\\rb.cc\"",
              "opkit.yaml:18:5: source 'src/a\rb.cc': a build value must be one line without control characters"},
         Case{k_libraries, "output: _text_ops.so", "output: \"a\\nb.so\"",
              "opkit.yaml:10:13: output 'a\nb.so' must be a plain file name, e.g. _text_ops_ops.so"},
       }) {
    EXPECT_EQ(error_of(replace(c.text, c.from, c.to)), c.error);
  }
}

TEST(Manifest, VersionRanges)
{
  auto range = *opkit::project::parse_version_range(">=1.15, <2.4");
  EXPECT_FALSE(range.contains(*opkit::project::parse_version("1.12.0")));
  EXPECT_TRUE(range.contains(*opkit::project::parse_version("1.15.5")));
  EXPECT_TRUE(range.contains(*opkit::project::parse_version("2.3.4")));
  EXPECT_FALSE(range.contains(*opkit::project::parse_version("2.4.0")));
  EXPECT_TRUE(opkit::project::parse_version_range("==2.10")->contains(*opkit::project::parse_version("2.10.1")));
  EXPECT_FALSE(opkit::project::parse_version_range("2.10").has_value()) << "a bare version is not a range";
}

TEST(Manifest, TestVectorsWithAttrsFilesAndExpectedErrors)
{
  std::string text = replace(k_good, "    - device: CPU\n", R"(    - device: CPU
  tests:
    - name: ints
      attrs: {T: int32}
      inputs: {to_zero: {dtype: int32, value: [[5, 4], [3, 2]]}}
      outputs: {zeroed: [[5, 0], [0, 0]]}
    - inputs: {to_zero: {dtype: string, file: data/words.txt}}
      error: "must not be empty"
      tolerance: 0.5
)");
  Manifest m = parse_manifest(text, "opkit.yaml", "/p");
  const auto& tests = m.primary_op().tests;
  ASSERT_EQ(tests.size(), 2U);
  EXPECT_EQ(tests[0].name, "ints");
  ASSERT_EQ(tests[0].attrs.size(), 1U);
  EXPECT_EQ(tests[0].attrs[0].type, "type");
  EXPECT_EQ(tests[0].attrs[0].json, "\"int32\"");
  EXPECT_EQ(tests[0].inputs[0].json, "[[5,4],[3,2]]");
  EXPECT_EQ(tests[0].outputs[0].json, "[[5,0],[0,0]]");
  EXPECT_FALSE(tests[0].expects_error);
  EXPECT_EQ(tests[1].inputs[0].file, "data/words.txt");
  EXPECT_EQ(tests[1].inputs[0].where, "opkit.yaml:22:47");
  EXPECT_TRUE(tests[1].expects_error);
  EXPECT_EQ(tests[1].error, "must not be empty");
  EXPECT_TRUE(tests[1].outputs.empty());
  EXPECT_DOUBLE_EQ(tests[1].tolerance, 0.5);
}

TEST(Manifest, BadTestVectorsAreNamedWhereTheyAre)
{
  auto with_test = [](const std::string& test) {
    return replace(k_good, "    - device: CPU\n", "    - device: CPU\n  tests:\n    - {" + test + "}\n");
  };
  const std::string in = "inputs: {to_zero: {dtype: int32, value: [1]}}";
  EXPECT_EQ(error_of(with_test(in)),
            "opkit.yaml:18:7: test vector lacks output 'zeroed' (or error: if the op must fail)");
  EXPECT_EQ(error_of(with_test(in + ", outputs: {zeroed: [1]}, error: x")),
            "opkit.yaml:18:64: a test vector expects either outputs or an error, not both");
  EXPECT_EQ(error_of(with_test(in + ", attrs: {N: 1}, error: x")),
            "opkit.yaml:18:63: the op has no attr 'N' (it has: T)");
  EXPECT_EQ(error_of(with_test("inputs: {to_zero: [1]}, error: x")),
            "opkit.yaml:18:26: input 'to_zero' has the type of attr T: give {dtype: ..., value: ...}");
  EXPECT_EQ(error_of(with_test("inputs: {to_zero: {dtype: int32, file: a.txt}}, error: x")),
            "opkit.yaml:18:26: input 'to_zero' names a file, so its dtype must be string");
  EXPECT_EQ(error_of(with_test("inputs: {to_zero: {dtype: int32}}, error: x")),
            "opkit.yaml:18:26: input 'to_zero' needs exactly one of value: and file:");
  for (const char* outside : {"/etc/passwd", "../secret.txt", "data/../../x.txt"}) {
    EXPECT_EQ(error_of(with_test(std::string("inputs: {to_zero: {dtype: string, file: ") + outside + "}}, error: x")),
              std::string("opkit.yaml:18:48: test data file '") + outside
                + "' must be a file of the project: a path relative to it, inside it");
  }
  EXPECT_EQ(error_of(with_test(in + ", error: x, tolerance: lots")),
            "opkit.yaml:18:76: tolerance must be a number >= 0, got 'lots'");
}

// Input rules (issue 16): every mistake is one file:line:col line, exit 2.
TEST(Manifest, HostileInputIsOneLineWithItsPlace)
{
  auto with_test = [](const std::string& test) {
    return replace(k_good, "    - device: CPU\n", "    - device: CPU\n  tests:\n    - " + test + "\n");
  };
  // Duplicate keys name the second one; yaml-cpp alone would keep the first.
  EXPECT_EQ(error_of(replace(k_good, "template:", "name: again\ntemplate:")), "opkit.yaml:2:1: duplicate key 'name'");
  EXPECT_EQ(error_of(replace(k_good, "      type: T\n", "      type: T\n      type: T\n")),
            "opkit.yaml:8:7: duplicate key 'type'");
  // Numbers out of range and nodes of the wrong kind (once std::stod and YAML::BadSubscript aborts).
  const std::string out = "outputs: {zeroed: [1]}";
  EXPECT_EQ(error_of(with_test("{inputs: {to_zero: {dtype: int32, value: [1]}}, " + out + ", tolerance: 1e999}")),
            "opkit.yaml:18:90: tolerance must be a number >= 0, got '1e999'");
  EXPECT_EQ(error_of(with_test("{inputs: {to_zero: {dtype: int32, value: [1]}}, " + out + ", tolerance: -1}")),
            "opkit.yaml:18:90: tolerance must be a number >= 0, got '-1'");
  EXPECT_EQ(error_of(with_test("{inputs: 5, " + out + "}")),
            "opkit.yaml:18:16: test vector input must map names to values");
  EXPECT_EQ(error_of(with_test("{inputs: {to_zero: {dtype: int32, value: [1]}}, outputs: [1]}")),
            "opkit.yaml:18:64: test vector output must map names to values");
  EXPECT_EQ(error_of(replace(k_good, "  kernels:\n    - device: CPU\n", "  kernels: CPU\n")),
            "opkit.yaml:15:12: 'kernels' must be a list");
  EXPECT_EQ(error_of(replace(k_good, "  inputs:\n    - name: to_zero\n      type: T\n", "  inputs: {a: 1}\n")),
            "opkit.yaml:5:11: 'inputs' must be a list");
  EXPECT_EQ(error_of("- just\n- a list\n").rfind("opkit.yaml:", 0), 0u);
}

TEST(Manifest, AliasBombIsRefusedQuickly)
{
  // Billion laughs: nine levels of nine aliases, about 1.5 KB of text.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    std::string row = fmt::format("a{}: &a{} [", level, level);
    for (int i = 0; i < 9; ++i) {
      row += fmt::format("{}*a{}", i == 0 ? "" : ", ", level - 1);
    }
    bomb += row + "]\n";
  }
  auto start = std::chrono::steady_clock::now();
  // Anchors come before their aliases: the bomb heads the document.
  std::string error =
    error_of(bomb
             + replace(k_good, "    - device: CPU\n",
                       "    - device: CPU\n  tests:\n    - inputs: {to_zero: {dtype: int32, value: *a9}}\n"
                       "      outputs: {zeroed: [1]}\n"));
  EXPECT_NE(error.find("expands to more than"), std::string::npos) << error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Deep nesting is bounded too.
  EXPECT_NE(error_of(k_good + std::string("x: ") + std::string(100, '[') + std::string(100, ']') + "\n")
              .find("nested more than"),
            std::string::npos);
}

TEST(Manifest, OpNamesWhosePythonFunctionBreaksAreRefused)
{
  EXPECT_EQ(error_of(replace(k_good, "name: ZeroOut", "name: Pass")),
            "opkit.yaml:4:9: op name 'Pass': TensorFlow names its Python function 'pass', a Python keyword, and "
            "the library's generated module would not load");
  EXPECT_EQ(error_of(replace(k_good, "name: ZeroOut", "name: Print")),
            "opkit.yaml:4:9: op name 'Print': TensorFlow makes no Python function for it ('print' is on its reserved "
            "list)");
  EXPECT_EQ(error_of(replace(k_good, "name: ZeroOut", "name: PassThrough")), "no error");
}

TEST(ProjectManifest, FindProjectRootSearchesUpwardLikeCargo)
{
  opkit::fs::TempDir tmp;
  std::filesystem::path project = tmp.path() / "proj";
  std::filesystem::path nested = project / "src" / "deep";
  std::filesystem::create_directories(nested);
  EXPECT_FALSE(opkit::project::find_project_root(nested).has_value()) << "no opkit.yaml anywhere above";
  opkit::fs::write_file_atomic(project / "opkit.yaml", k_good);
  ASSERT_TRUE(opkit::project::find_project_root(nested).has_value());
  EXPECT_EQ(*opkit::project::find_project_root(nested), std::filesystem::absolute(project).lexically_normal());
  EXPECT_EQ(*opkit::project::find_project_root(project), std::filesystem::absolute(project).lexically_normal());
  EXPECT_EQ(*opkit::project::find_project_root(project / "src" / ".."),
            std::filesystem::absolute(project).lexically_normal());
  // The nearest wins: a project nested inside another is its own.
  opkit::fs::write_file_atomic(nested / "opkit.yaml", k_good);
  EXPECT_EQ(*opkit::project::find_project_root(nested), std::filesystem::absolute(nested).lexically_normal());
  // A folder named opkit.yaml is not a manifest.
  std::filesystem::path other = tmp.path() / "other" / "opkit.yaml" / "x";
  std::filesystem::create_directories(other);
  EXPECT_FALSE(opkit::project::find_project_root(other.parent_path()).has_value());
}

TEST(ProjectManifest, LoadManifestFromASubfolderRootsTheProjectAbove)
{
  opkit::fs::TempDir tmp;
  std::filesystem::path project = tmp.path() / "proj";
  std::filesystem::create_directories(project / "src");
  opkit::fs::write_file_atomic(project / "opkit.yaml", k_good);
  Manifest manifest = opkit::project::load_manifest(project / "src");
  EXPECT_EQ(manifest.root, std::filesystem::absolute(project).lexically_normal());
  EXPECT_EQ(manifest.name, "zero_out");
  std::filesystem::path empty = tmp.path() / "empty";
  std::filesystem::create_directories(empty);
  try {
    opkit::project::load_manifest(empty);
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("no opkit.yaml here or in any folder above"), std::string::npos) << e.what();
  }
}

namespace {

const char* k_torch = R"(name: zo
template: torch-op
libraries:
  - name: zo
    sources: [src/zo.cpp]
    ops:
      - schema: "zo::scale(Tensor x, float factor=2., Tensor? bias=None) -> Tensor"
        kernels: [CPU, Autograd]
        tests:
          - name: doubles
            inputs: {x: [1, 2]}
            outputs: {output: [2, 4]}
          - inputs: {x: {dtype: float, value: [1.5]}, factor: 3}
            outputs: {output: [4.5]}
targets:
  torch: ["2.5", "2.8"]
)";

} // namespace

TEST(Manifest, ATorchOpIsItsSchemaWithEveryArgumentAnInputOfItsVectors)
{
  Manifest manifest = parse_manifest(k_torch, "opkit.yaml", "/p");
  ASSERT_EQ(manifest.framework, "torch");
  const opkit::project::OpSpec& op = manifest.libraries.at(0).ops.at(0);
  EXPECT_EQ(op.name, "zo::scale");
  EXPECT_EQ(op.schema, "zo::scale(Tensor x, float factor=2., Tensor? bias=None) -> Tensor");
  ASSERT_EQ(op.inputs.size(), 2u); // the tensors
  EXPECT_TRUE(op.inputs[1].optional);
  ASSERT_EQ(op.attrs.size(), 1u); // the rest
  EXPECT_EQ(op.attrs[0].type, "float");
  ASSERT_EQ(op.kernels.size(), 2u);
  EXPECT_EQ(op.kernels[1].device, "Autograd");
  ASSERT_EQ(op.tests.size(), 2u);
  EXPECT_EQ(op.tests[0].inputs.at(0).type, ""); // inferred, as torch.tensor([1, 2]) does
  EXPECT_EQ(op.tests[0].inputs.size(), 1u);     // bias left to its default
  EXPECT_EQ(op.tests[1].inputs.at(0).type, "float32");
  ASSERT_EQ(op.tests[1].attrs.size(), 1u);
  EXPECT_EQ(op.tests[1].attrs[0].json, "3");
}

TEST(Manifest, ATorchOpsMistakesAreNamedWhereTheyAre)
{
  EXPECT_NE(error_of(replace(k_torch, "zo::scale(Tensor x,", "scale(Tensor x,")).find("opkit.yaml:7:"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_torch, "[CPU, Autograd]", "[CPU, Autgrad]")).find("did you mean Autograd"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_torch, "dtype: float,", "dtype: string,")).find("unknown torch dtype 'string'"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_torch, "factor: 3}", "factr: 3}")).find("the op has no input 'factr'"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_torch, "inputs: {x: [1, 2]}", "inputs: {factor: 1}")).find("lacks input 'x'"),
            std::string::npos);
  EXPECT_NE(
    error_of(replace(k_torch, "      - schema:", "      - name: Scale\n        schema:")).find("unknown key 'name'"),
    std::string::npos);
}

TEST(Manifest, ALibraryOfGpuKernelsOnlyIsBuiltByCudaSdksAlone)
{
  std::string text = "name: research\nlibraries:\n  - name: sampling\n    device: gpu\n    sources: [s.cpp]\n"
                     "  - name: interpolate\n    tensorflow: \">=2.0\"\n    sources: [i.cpp]\n";
  opkit::project::Manifest manifest = parse_manifest(text, "opkit.yaml", "/p");
  const opkit::project::LibrarySpec& sampling = manifest.libraries.at(0);
  const opkit::project::LibrarySpec& interpolate = manifest.libraries.at(1);
  opkit::project::Version v2 = *opkit::project::parse_version("2.10.1");
  opkit::project::Version v1 = *opkit::project::parse_version("1.12.0");
  EXPECT_EQ(sampling.device, "gpu");
  EXPECT_FALSE(sampling.builds_for(v2, false));
  EXPECT_TRUE(sampling.builds_for(v2, true));
  EXPECT_EQ(sampling.skip_reason("tensorflow", v2, false), "GPU kernels only: built by CUDA SDKs");
  EXPECT_EQ(sampling.skip_reason("tensorflow", v2, true), "");
  EXPECT_TRUE(interpolate.builds_for(v2, false));
  EXPECT_FALSE(interpolate.builds_for(v1, true));
  EXPECT_EQ(interpolate.skip_reason("tensorflow", v1, true), "tensorflow >=2.0");
  EXPECT_EQ(error_of("name: r\nlibraries:\n  - name: s\n    device: cpu\n    sources: [s.cpp]\n"),
            "opkit.yaml:4:13: a library's device can only be gpu (its kernels are GPU kernels only), got 'cpu'");
}

// python_module: a dotted module name; the library's file is then named per
// CPython (output, when given, is the module's last part .so).
TEST(Manifest, APythonModuleIsNamedByItsDottedNameAndItsFilePerPython)
{
  std::string text =
    replace(k_torch, "    sources: [src/zo.cpp]\n", "    sources: [src/zo.cpp]\n    python_module: zo_pkg._C\n");
  Manifest manifest = parse_manifest(text, "opkit.yaml", "/p");
  const opkit::project::LibrarySpec& library = manifest.libraries.at(0);
  EXPECT_EQ(library.python_module, "zo_pkg._C");
  EXPECT_EQ(library.output, "_C.so");
  EXPECT_EQ(library.module_file(".cpython-311-x86_64-linux-gnu.so"), "_C.cpython-311-x86_64-linux-gnu.so");
  EXPECT_EQ(manifest.libraries.at(0).ops.size(), 1u);
  EXPECT_EQ(parse_manifest(k_torch, "opkit.yaml", "/p").libraries.at(0).module_file(".cpython-311.so"), "libzo.so");

  std::string bad =
    replace(k_torch, "    sources: [src/zo.cpp]\n", "    sources: [src/zo.cpp]\n    python_module: zo-pkg.1C\n");
  EXPECT_NE(error_of(bad).find("opkit.yaml:6:20: python_module 'zo-pkg.1C' must be a dotted Python module name"),
            std::string::npos)
    << error_of(bad);
  std::string renamed = replace(k_torch, "    sources: [src/zo.cpp]\n",
                                "    sources: [src/zo.cpp]\n    python_module: zo_pkg._C\n    output: libzo.so\n");
  EXPECT_NE(error_of(renamed).find("output 'libzo.so' of python_module zo_pkg._C must be _C.so"), std::string::npos)
    << error_of(renamed);
}

// package: the tree's own top-level Python package, one name.
TEST(Manifest, ThePackageIsOneTopLevelName)
{
  std::string text = replace(k_torch, "template: torch-op\n", "template: torch-op\npackage: zo_pkg\n");
  EXPECT_EQ(parse_manifest(text, "opkit.yaml", "/p").package, "zo_pkg");
  EXPECT_EQ(parse_manifest(k_torch, "opkit.yaml", "/p").package, "");
  std::string dotted = replace(k_torch, "template: torch-op\n", "template: torch-op\npackage: zo.pkg\n");
  EXPECT_NE(error_of(dotted).find("opkit.yaml:3:10: package 'zo.pkg' is the top-level Python package"),
            std::string::npos)
    << error_of(dotted);
  std::string bad = replace(k_torch, "template: torch-op\n", "template: torch-op\npackage: 9pkg\n");
  EXPECT_NE(error_of(bad).find("package '9pkg' must be a dotted Python module name"), std::string::npos)
    << error_of(bad);
}
