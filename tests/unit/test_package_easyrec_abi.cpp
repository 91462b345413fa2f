#include "opkit/package/easyrec_abi.hpp"

#include <gtest/gtest.h>

using namespace opkit;

TEST(EasyRecAbi, AbiFromMangledNames)
{
  // std::string f(const std::string&) in each ABI.
  const std::string cxx11 = "_Z11easyrec_ownRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
  const std::string old = "_Z11easyrec_ownRKSs";
  EXPECT_EQ(package::abi_from_symbols({cxx11, "memcpy"}), 1);
  EXPECT_EQ(package::abi_from_symbols({"_ZN10tensorflow6StatusC1ENS_5error4CodeB5cxx11E"}), 1);
  EXPECT_EQ(package::abi_from_symbols({old}), 0);
  EXPECT_EQ(package::abi_from_symbols({"_ZNSsC1EPKcRKSaIcE"}), 0); // the old std::string's constructor
  EXPECT_EQ(package::abi_from_symbols({"_ZN10tensorflow12OpDefBuilderC1ESs"}), 0);
  EXPECT_FALSE(package::abi_from_symbols({cxx11, old}));
  EXPECT_FALSE(package::abi_from_symbols({"memcpy", "_Z3fooi", "_ZN3Ss3barEv"}));
  EXPECT_FALSE(package::abi_from_symbols({}));
}

TEST(EasyRecAbi, DisagreementsNameBothSides)
{
  package::LibraryTraits op{0, "libtensorflow_framework.so"};
  package::LibraryTraits same{0, "libtensorflow_framework.so"};
  package::LibraryTraits other_abi{1, "libtensorflow_framework.so"};
  package::LibraryTraits other_soname{0, "libtensorflow_framework.so.1"};
  package::LibraryTraits unknown{std::nullopt, ""};
  EXPECT_TRUE(package::traits_disagree(op, same).empty());
  EXPECT_TRUE(package::traits_disagree(op, unknown).empty());
  EXPECT_EQ(package::traits_disagree(op, other_abi), std::vector<std::string>{"_GLIBCXX_USE_CXX11_ABI=0 against 1"});
  EXPECT_EQ(package::traits_disagree(op, other_soname),
            std::vector<std::string>{"libtensorflow_framework.so against libtensorflow_framework.so.1"});
  package::LibraryTraits both{1, "libtensorflow_framework.so.1"};
  EXPECT_EQ(package::traits_disagree(op, both).size(), 2u);
}
