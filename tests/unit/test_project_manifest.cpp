#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

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

TEST(Manifest, ParsesTheTemplateShape)
{
  Manifest m = parse_manifest(k_good, "opkit.yaml", "/p");
  EXPECT_EQ(m.name, "zero_out");
  EXPECT_EQ(m.op.name, "ZeroOut");
  ASSERT_EQ(m.op.inputs.size(), 1U);
  EXPECT_EQ(m.op.inputs[0].name, "to_zero");
  EXPECT_EQ(m.op.inputs[0].type, "T");
  ASSERT_EQ(m.op.attrs.size(), 1U);
  EXPECT_EQ(m.op.attrs[0].allowed, (std::vector<std::string>{"int32", "float"}));
  EXPECT_EQ(m.op.kernels.at(0).device, "CPU");
  EXPECT_EQ(m.sources, std::vector<std::string>{"src/zero_out_op.cc"});
  EXPECT_EQ(m.tf_versions, (std::vector<std::string>{"1.12", "2.10.1"}));
}

TEST(Manifest, SyntaxErrorsCarryLineAndColumn)
{
  EXPECT_EQ(error_of("name: x\nop: [\n"), "opkit.yaml:3:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(error_of("name: x\n  bad: indent\n"), "opkit.yaml:2:6: invalid YAML: illegal map value");
}

TEST(Manifest, RuleErrorsPointAtTheOffendingNode)
{
  EXPECT_EQ(error_of(replace(k_good, "name: ZeroOut", "name: zeroOut")),
            "opkit.yaml:4:9: invalid op name 'zeroOut' (TensorFlow op names are CamelCase: [A-Z][A-Za-z0-9]*)");
  EXPECT_EQ(error_of(replace(k_good, "      type: T\n  outputs", "      type: Q\n  outputs")),
            "opkit.yaml:7:13: type 'Q' is neither a dtype nor a type attr of this op");
  EXPECT_EQ(error_of(replace(k_good, "[int32, float]", "[int32, flaot]")), "opkit.yaml:14:16: unknown dtype 'flaot'");
  EXPECT_EQ(error_of(replace(k_good, "sources:", "srcs:")),
            "opkit.yaml:17:1: unknown key 'srcs' (expected one of: name, version, template, op, sources, targets, build)");
  EXPECT_EQ(error_of(replace(k_good, "name: zero_out", "name: ZeroOut")),
            "opkit.yaml:1:7: name 'ZeroOut' must be snake_case (did you mean 'zero_out'?)");
  EXPECT_EQ(error_of(replace(k_good, "\"2.10.1\"", "\"2.x\"")), "opkit.yaml:20:15: invalid TensorFlow version '2.x'");
  EXPECT_EQ(error_of(replace(k_good, "src/zero_out_op.cc", "../outside.cc")),
            "opkit.yaml:18:3: source '../outside.cc' must be a path inside the project");
  EXPECT_EQ(error_of(replace(k_good, "      type: type\n", "      type: typ\n")),
            "opkit.yaml:13:13: unknown attr type 'typ' (expected one of: type, int, float, bool, string, shape, "
            "list(type), list(int), list(float), tensor)");
}

TEST(Manifest, MissingPiecesAreNamed)
{
  EXPECT_EQ(error_of("name: zero_out\nsources: [a.cc]\n"), "opkit.yaml:1:1: missing required key 'op'");
  EXPECT_EQ(error_of("op:\n  name: X\n"), "opkit.yaml:1:1: missing required key 'name'");
  EXPECT_EQ(error_of("- a\n- b\n"), "opkit.yaml:1:1: expected a mapping at the top level");
  EXPECT_EQ(error_of(replace(k_good, "  - src/zero_out_op.cc\n", "")), "opkit.yaml:1:1: 'sources' must list at least one file");
}
