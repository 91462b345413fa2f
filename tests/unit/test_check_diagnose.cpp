#include "opkit/check/checker.hpp"
#include "opkit/check/diagnose.hpp"

#include <gtest/gtest.h>

using namespace opkit::check;

namespace {

// A framework that exports three functions, spelled as TF 1.12 (old ABI, absl::string_view) does.
ProfileLibrary
old_framework()
{
  ProfileLibrary lib;
  lib.soname = "libtensorflow_framework.so";
  lib.framework = true;
  lib.symbols_known = true;
  lib.symbols = {{"_ZN10tensorflow12OpDefBuilder4AttrESs", "", false},
                 {"_ZN10tensorflow3fooEN4absl11string_viewE", "", false},
                 {"_ZN10tensorflow6Status8ToStringEv", "", false},
                 {"_ZN10tensorflow3barENS_6StatusE", "", false}};
  return lib;
}

SymbolRef
ref(const std::string& mangled)
{
  return {mangled, demangle(mangled), "", {}};
}

} // namespace

TEST(CheckDiagnose, Normalisations)
{
  EXPECT_EQ(without_abi_tags("f(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >)"),
            "f(std::string)");
  EXPECT_EQ(without_abi_tags("g[abi:cxx11]()"), "g()");
  EXPECT_EQ(without_string_view_flavour("f(absl::lts_20220623::string_view)"), "f(string_view)");
  EXPECT_EQ(without_string_view_flavour("f(std::basic_string_view<char, std::char_traits<char> >)"), "f(string_view)");
  // Other abseil names keep their lts release: a different one is version skew, not another -std.
  EXPECT_EQ(without_string_view_flavour("f(absl::lts_20230125::Cord, absl::lts_20230125::string_view)"),
            "f(absl::lts_20230125::Cord, string_view)");
}

// An abseil name from another lts release than the framework's is
// framework-version-skew ("built against another TF"), never
// cxx-standard-mismatch ("built with another -std"), though only the lts differs.
TEST(CheckDiagnose, AbseilLtsSkewIsVersionSkew)
{
  ProfileLibrary framework;
  framework.soname = "libtensorflow_framework.so.2";
  framework.framework = true;
  framework.symbols_known = true;
  framework.symbols = {{"_ZN10tensorflow3quxEN4absl12lts_202206234CordE", "", false}};
  CheckTarget target;
  target.framework_version = "2.10.1";
  target.cxx11_abi = 1;
  target.cxx_standard = 17;
  std::vector<Finding> findings =
    diagnose_unresolved({ref("_ZN10tensorflow3quxEN4absl12lts_202301254CordE")}, {&framework}, target);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].kind, "framework-version-skew");
}

// EasyRec's TF 1.12 library once got framework-symbol-missing for this: the
// old ABI's std::string inside a template argument demangles as
// "std::string> >", the new one's, spelled out, as "std::string > >".
TEST(CheckDiagnose, AbiTwinsInsideTemplateArgumentsNormaliseAlike)
{
  std::string old_abi = demangle("_Z1fRKSt6vectorISsSaISsEE");
  std::string new_abi = demangle("_Z1fRKSt6vectorINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESaIS5_EE");
  ASSERT_NE(old_abi, new_abi);
  EXPECT_EQ(without_abi_tags(old_abi), without_abi_tags(new_abi));
  EXPECT_EQ(without_abi_tags(new_abi), "f(std::vector<std::string, std::allocator<std::string>> const&)");
  // Spaces elsewhere stay.
  EXPECT_EQ(without_abi_tags("f(unsigned long, char const*)"), "f(unsigned long, char const*)");
}

TEST(CheckDiagnose, SortsUnresolvedSymbolsByCause)
{
  ProfileLibrary framework = old_framework();
  CheckTarget target;
  target.framework_version = "1.12.0";
  target.cxx11_abi = 0;
  target.cxx_standard = 11;
  std::vector<Finding> findings =
    diagnose_unresolved({ref("_ZN10tensorflow12OpDefBuilder4AttrENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
                         ref("_ZN10tensorflow3fooESt17basic_string_viewIcSt11char_traitsIcEE"),
                         ref("_ZN3tsl6Status8ToStringEv"), ref("_ZN10tensorflow3barEN4absl12lts_202301256StatusE"),
                         ref("_ZN10tensorflow16NotInAnyVersionEv"), ref("some_c_function")},
                        {&framework}, target);
  ASSERT_EQ(findings.size(), 5U);
  EXPECT_EQ(findings[0].kind, "dual-abi-mismatch");
  EXPECT_EQ(findings[0].diagnosis,
            "the framework exports these with _GLIBCXX_USE_CXX11_ABI=0, the library was compiled with "
            "_GLIBCXX_USE_CXX11_ABI=1");
  EXPECT_EQ(findings[0].remedy, "rebuild with the framework's ABI flag: opkit build --tf 1.12.0");
  EXPECT_EQ(findings[1].kind, "cxx-standard-mismatch");
  EXPECT_EQ(findings[2].kind, "framework-version-skew");
  EXPECT_EQ(findings[2].symbols.size(), 2U); // tsl::Status, and absl::Status where TF had its own
  EXPECT_EQ(findings[3].kind, "framework-symbol-missing");
  EXPECT_EQ(findings[4].kind, "unresolved-symbol");
  EXPECT_EQ(findings[4].symbols.at(0).mangled, "some_c_function");
}

TEST(CheckDiagnose, DemangleLeavesCNamesAlone)
{
  EXPECT_EQ(demangle("_ZdlPvm"), "operator delete(void*, unsigned long)");
  EXPECT_EQ(demangle("memcpy"), "memcpy");
  EXPECT_EQ(demangle("_Zgarbage"), "_Zgarbage");
}

namespace {

Finding
finding_of(const std::string& kind, bool fatal = true)
{
  Finding finding;
  finding.kind = kind;
  finding.fatal = fatal;
  finding.diagnosis = kind + " why";
  return finding;
}

} // namespace

TEST(CheckDiagnose, FindingsOrderedByCause)
{
  // A torch 2.8 library against 2.5.1: two symbol versions of the newer
  // toolchain first, as they were found; the ABI mismatch explains them all.
  CheckTarget target;
  target.framework = "torch";
  target.framework_version = "2.5.1";
  std::vector<Finding> findings = {finding_of("version-too-new"), finding_of("version-too-new"),
                                   finding_of("dual-abi-mismatch"), finding_of("cpu-feature", false),
                                   finding_of("unresolved-symbol")};
  order_by_cause(findings, target);
  ASSERT_EQ(findings.size(), 5u);
  EXPECT_EQ(findings[0].kind, "dual-abi-mismatch");
  EXPECT_EQ(findings[0].diagnosis, "dual-abi-mismatch why");
  for (size_t i : {1, 2, 4}) {
    EXPECT_NE(findings[i].diagnosis.find("follows from [dual-abi-mismatch] above"), std::string::npos)
      << findings[i].kind << ": " << findings[i].diagnosis;
    EXPECT_NE(findings[i].diagnosis.find("torch 2.5.1"), std::string::npos) << findings[i].diagnosis;
  }
  EXPECT_EQ(findings[1].kind, "version-too-new"); // the rest keep their order
  EXPECT_EQ(findings[3].kind, "cpu-feature");
  EXPECT_EQ(findings[3].diagnosis, "cpu-feature why"); // a warning does not follow from it

  // No such cause: nothing moves, nothing is said.
  std::vector<Finding> plain = {finding_of("version-too-new"), finding_of("missing-library")};
  order_by_cause(plain, target);
  EXPECT_EQ(plain[0].kind, "version-too-new");
  EXPECT_EQ(plain[0].diagnosis, "version-too-new why");
}
