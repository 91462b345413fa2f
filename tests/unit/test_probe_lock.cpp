#include "opkit/probe/lock.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <string>

using opkit::probe::diff_interfaces;
using opkit::probe::Interface;
using opkit::probe::interface_of;
using opkit::probe::LockEntry;
using opkit::probe::LockFile;
using opkit::probe::parse_lock;
using opkit::probe::ProbeReport;
using opkit::probe::RegisteredKernel;
using opkit::probe::RegisteredOp;
using opkit::probe::render_lock;
using opkit::project::parse_attr_spec;

namespace {

RegisteredOp
op(const std::string& name, std::vector<std::string> attrs)
{
  RegisteredOp out{name, {opkit::project::parse_arg_spec("x: T")}, {opkit::project::parse_arg_spec("y: N * T")}, {}};
  for (const std::string& spec : attrs) {
    out.attrs.push_back(parse_attr_spec(spec));
  }
  return out;
}

Interface
clip_interface(const std::string& clip_default)
{
  ProbeReport report;
  report.loaded = true;
  // The registry's order is not sorted: the interface is.
  report.ops = {op("Zeta", {"T: type"}),
                op("LockedClip", {"T: {float, double} = DT_FLOAT", "N: int >= 1 = 2", "clip: float = " + clip_default,
                                  "data_format: {'NHWC', 'NCHW'} = 'NHWC'"})};
  report.ops[0].stateful = true;
  report.kernels = {{"LockedClip", "CPU", {{"T", "", {"float"}}}},
                    {"LockedClip", "CPU", {{"T", "", {"double"}}}},
                    {"Zeta", "GPU", {}, "fast"}};
  return interface_of(report);
}

const char* k_expected = R"(library locked_op tensorflow-1.12.0
op LockedClip
  input x: T
  output y: N * T
  attr T: {float, double} = float
  attr N: int >= 1 = 2
  attr clip: float = 100
  attr data_format: {"NHWC", "NCHW"} = "NHWC"
op Zeta
  stateful
  input x: T
  output y: N * T
  attr T: type
kernel LockedClip CPU T in {double}
kernel LockedClip CPU T in {float}
kernel Zeta GPU label "fast"

library locked_op tensorflow-2.10.1
)";

std::string
lock_error(const std::string& text)
{
  try {
    parse_lock(text, "opkit.lock");
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    return e.what();
  }
  return "no error";
}

} // namespace

TEST(Lock, RendersSortedAndStable)
{
  LockFile lock;
  lock.put({"locked_op", "tensorflow-2.10.1", clip_interface("100.0")});
  lock.put({"locked_op", "tensorflow-1.12.0", clip_interface("100.0")});
  lock.put({"locked_op", "tensorflow-2.10.1", clip_interface("100.0")}); // replaces, never doubles
  std::string text = render_lock(lock);
  ASSERT_EQ(text.rfind("# opkit.lock: ", 0), 0U) << text;
  std::string body = text.substr(text.find("version: 1\n\n") + 12);
  EXPECT_EQ(body.substr(0, std::string(k_expected).size()), k_expected);
  EXPECT_EQ(text.find("/"), text.find("/` read it") == std::string::npos ? std::string::npos : text.find("/"));
  // Parsing and rendering again gives the same bytes.
  EXPECT_EQ(render_lock(parse_lock(text, "opkit.lock")), text);
}

TEST(Lock, ParsesBackTheSameInterface)
{
  LockFile lock;
  lock.put({"locked_op", "tensorflow-1.12.0", clip_interface("0.5")});
  LockFile back = parse_lock(render_lock(lock), "opkit.lock");
  ASSERT_EQ(back.entries.size(), 1U);
  EXPECT_TRUE(back.entries[0].interface == lock.entries[0].interface);
  EXPECT_TRUE(diff_interfaces(lock.entries[0].interface, back.entries[0].interface).empty());
  EXPECT_EQ(back.find("locked_op", "tensorflow-1.12.0"), &back.entries[0]);
  EXPECT_EQ(back.find("locked_op", "tensorflow-2.10.1"), nullptr);
}

TEST(Lock, DiffNamesEachChange)
{
  Interface before = clip_interface("100.0");
  Interface after = clip_interface("50.5");
  EXPECT_EQ(diff_interfaces(before, after), (std::vector<std::string>{"LockedClip: attr clip: default 100 -> 50.5"}));

  after.ops[0].attrs[1] = parse_attr_spec("N: int >= 2");
  after.ops[0].attrs[3] = parse_attr_spec("data_format: {'NHWC'} = 'NHWC'");
  after.ops[0].attrs.push_back(parse_attr_spec("salt: string = ''"));
  after.ops[0].attrs.erase(after.ops[0].attrs.begin()); // T
  after.ops[0].inputs[0].is_ref = true;
  after.ops[1].stateful = false;
  after.kernels.erase(after.kernels.begin());
  after.kernels.emplace_back("LockedClip GPU T in {float}");
  std::sort(after.kernels.begin(), after.kernels.end());
  after.ops.push_back(op("Widen", {}));
  EXPECT_EQ(diff_interfaces(before, after), (std::vector<std::string>{
                                              "LockedClip: inputs (x: T) -> (x: Ref(T))",
                                              "LockedClip: attr T: removed (was T: {float, double} = float)",
                                              "LockedClip: attr N: default 2 -> none",
                                              "LockedClip: attr N: minimum 1 -> 2",
                                              "LockedClip: attr clip: default 100 -> 50.5",
                                              "LockedClip: attr data_format: type {\"NHWC\", \"NCHW\"} -> {\"NHWC\"}",
                                              "LockedClip: attr salt: added (salt: string = \"\")",
                                              "Widen: op added",
                                              "Zeta: stateful true -> false",
                                              "LockedClip: kernel CPU T in {double}: removed",
                                              "LockedClip: kernel GPU T in {float}: added",
                                            }));
  EXPECT_EQ(diff_interfaces(after, before).back(), "LockedClip: kernel CPU T in {double}: added");
  Interface gone = before;
  gone.ops.pop_back();
  EXPECT_EQ(diff_interfaces(before, gone), (std::vector<std::string>{"Zeta: op removed"}));
}

TEST(Lock, RefusesADamagedFile)
{
  EXPECT_EQ(lock_error(""), "opkit.lock: empty: expected 'version: 1' (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("# only\nversion: 2\n"),
            "opkit.lock:2:1: expected 'version: 1' (an opkit.lock this opkit writes) (`opkit test --update` writes it "
            "again)");
  EXPECT_EQ(lock_error("version: 1\nop X\n"),
            "opkit.lock:2:1: expected 'library NAME SDK' before anything else (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a\n"),
            "opkit.lock:2:9: expected 'library NAME SDK' (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a tf\n  attr x: int\n"),
            "opkit.lock:3:3: an op's line before any 'op NAME' (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a tf\nop X\n  attr n: int >= x\n"),
            "opkit.lock:4:18: expected an integer, found 'x' (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a tf\nop X\n  input x T\n"),
            "opkit.lock:4:11: expected a ':', found 'T' (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a tf\nop X\n  color red\n"),
            "opkit.lock:4:3: expected stateful, schema, input, output or attr (`opkit test --update` writes it again)");
  EXPECT_EQ(lock_error("version: 1\nlibrary a tf\nlibrary a tf\n"),
            "opkit.lock: library a tf appears twice (`opkit test --update` writes it again)");
}

// torch's interface: each operator's schema as the dispatcher prints it, and
// the dispatch keys it has kernels for; no args or attrs of TF's grammar.
TEST(Lock, KeepsATorchSchemaAndNamesItsChange)
{
  ProbeReport report;
  report.loaded = true;
  RegisteredOp zero_out{"tally::zero_out", {}, {}, {}};
  zero_out.schema = "tally::zero_out(Tensor x) -> Tensor";
  report.ops = {zero_out};
  report.kernels = {RegisteredKernel{"tally::zero_out", "CPU", {}},
                    RegisteredKernel{"tally::zero_out", "Autograd", {}}};
  LockFile lock;
  lock.put({"tally", "torch-2.8.0-cuda", interface_of(report)});
  std::string text = render_lock(lock);
  EXPECT_NE(text.find("op tally::zero_out\n  schema tally::zero_out(Tensor x) -> Tensor\n"
                      "kernel tally::zero_out Autograd\nkernel tally::zero_out CPU\n"),
            std::string::npos)
    << text;
  LockFile back = parse_lock(text, "opkit.lock");
  ASSERT_NE(back.find("tally", "torch-2.8.0-cuda"), nullptr);
  EXPECT_TRUE(back.find("tally", "torch-2.8.0-cuda")->interface == interface_of(report));

  ProbeReport changed = report;
  changed.ops[0].schema = "tally::zero_out(Tensor x, int keep=1) -> Tensor";
  changed.kernels.pop_back();
  std::vector<std::string> diff = diff_interfaces(interface_of(report), interface_of(changed));
  ASSERT_EQ(diff.size(), 2U);
  EXPECT_EQ(diff[0], "tally::zero_out: schema tally::zero_out(Tensor x) -> Tensor -> "
                     "tally::zero_out(Tensor x, int keep=1) -> Tensor");
  EXPECT_NE(diff[1].find("Autograd"), std::string::npos) << diff[1];
}
