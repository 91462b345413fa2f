#include "opkit/elf/mangled.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit::elf;

TEST(ElfMangled, OldStdString)
{
  EXPECT_TRUE(has_old_std_string("_ZN10tensorflow6StatusC1ENS_5error4CodeERKSs")); // RKSs
  EXPECT_TRUE(has_old_std_string("_ZN10tensorflow8str_util9LowercaseEPKSs"));      // PKSs
  EXPECT_TRUE(has_old_std_string("_ZNSs4_Rep10_M_destroyERKSaIcE"));               // a member of std::string
  EXPECT_TRUE(has_old_std_string("_ZN10tensorflow4core8GetValueISsEEvv"));         // ISs: a template argument
  EXPECT_FALSE(
    has_old_std_string("_ZN10tensorflow6StatusC1ENS_5error4CodeENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"));
  EXPECT_FALSE(has_old_std_string("_ZN3Foo2SsEv")); // "2Ss": an identifier named Ss
  EXPECT_FALSE(has_old_std_string("Ss"));
  EXPECT_FALSE(has_old_std_string(""));
}

TEST(ElfMangled, AbslStringView)
{
  EXPECT_TRUE(has_absl_string_view("_ZN10tensorflow3FooEN4absl12lts_2022062311string_viewE"));
  EXPECT_TRUE(has_absl_string_view("_ZN10tensorflow3FooEN4absl11string_viewE"));
  EXPECT_FALSE(has_absl_string_view("_ZN10tensorflow3FooESt17basic_string_viewIcSt11char_traitsIcEE"));
  EXPECT_FALSE(has_absl_string_view("_ZN10tensorflow3FooEN4absl12lts_2022x62311string_viewE"));
  EXPECT_FALSE(has_absl_string_view("N4absl12lts_2022"));
}

TEST(ElfMangled, AbseilLts)
{
  EXPECT_EQ(abseil_lts("_ZN4absl12lts_202206236StatusC1Ev"), "lts_20220623");
  EXPECT_EQ(abseil_lts("_ZN10tensorflow3FooEN4absl12lts_2021110211string_viewE"), "lts_20211102");
  EXPECT_EQ(abseil_lts("_ZN4absl6StatusC1Ev"), "");
  EXPECT_EQ(abseil_lts("_ZN4absl12lts_"), "");
}

TEST(ElfMangled, WithoutAbseilLts)
{
  EXPECT_EQ(without_abseil_lts("absl::lts_20220623::Status f(absl::lts_20220623::string_view)"),
            "absl::Status f(absl::string_view)");
  EXPECT_EQ(without_abseil_lts("absl::lts_x::Status"), "absl::lts_x::Status");
  EXPECT_EQ(without_abseil_lts("absl::lts_2022"), "absl::lts_2022");
  EXPECT_EQ(without_abseil_lts(""), "");
}

TEST(ElfMangled, LongNamesAreLinear)
{
  // A 1 MB name once overflowed std::regex's recursion; the scans just walk it.
  std::string name = "_ZN10tensorflow" + std::string(1 << 20, 'S') + "N4absl12lts_";
  EXPECT_FALSE(has_old_std_string(name));
  EXPECT_FALSE(has_absl_string_view(name));
  EXPECT_EQ(abseil_lts(name), "");
  std::string demangled(1 << 20, ':');
  EXPECT_EQ(without_abseil_lts(demangled), demangled);
}
