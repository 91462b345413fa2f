#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit;

// FIPS 180-2 / NIST test vectors.
TEST(Hash, KnownVectors)
{
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Hash, Base64MatchesTheDigestHeaderForm)
{
  // `printf abc | openssl dgst -sha256 -binary | base64`
  EXPECT_EQ(to_base64(sha256_digest("abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  EXPECT_EQ(to_base64(sha256_digest("")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
}

TEST(Hash, Base64UrlIsWhatWheelRecordsUse)
{
  // URL-safe alphabet, no padding: `printf abc | openssl dgst -sha256 -binary | base64 | tr +/ -_ | tr -d =`
  EXPECT_EQ(to_base64url(sha256_digest("abc")), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  EXPECT_EQ(to_base64url(sha256_digest("")), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

TEST(Hash, PiecesMatchTheWhole)
{
  std::string data(100000, 'z');
  Sha256Hasher hasher;
  for (size_t at = 0; at < data.size(); at += 333) {
    std::string_view piece = std::string_view(data).substr(at, 333);
    hasher.update(piece.data(), piece.size());
  }
  EXPECT_EQ(to_hex(hasher.finish()), sha256_hex(data));
}

TEST(Hash, FileMatchesString)
{
  fs::TempDir dir;
  fs::write_file_atomic(dir.path() / "empty", "");
  EXPECT_EQ(sha256_hex_file(dir.path() / "empty"), sha256_hex(""));
  // Larger than the read buffer, so several updates are chained.
  std::string big;
  for (int i = 0; i < 200000; ++i) {
    big += static_cast<char>(i * 7 + 3);
  }
  fs::write_file_atomic(dir.path() / "big", big);
  EXPECT_EQ(sha256_hex_file(dir.path() / "big"), sha256_hex(big));
  EXPECT_EQ(sha256_digest_file(dir.path() / "big"), sha256_digest(big));
}

TEST(Hash, MissingFileIsAnError)
{
  fs::TempDir dir;
  try {
    sha256_hex_file(dir.path() / "absent");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::system);
    EXPECT_NE(std::string(e.what()).find("absent: cannot open"), std::string::npos);
  }
}

TEST(Fnv1a64, KnownVectors)
{
  EXPECT_EQ(opkit::fnv1a64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(opkit::fnv1a64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(opkit::fnv1a64_hex("foobar"), "85944171f73967e8");
}
