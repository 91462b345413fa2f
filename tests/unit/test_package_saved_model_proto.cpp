#include "opkit/package/saved_model_proto.hpp"

#include "opkit/util/fs.hpp"
#include "opkit/util/protobuf_wire.hpp"
#include "protobuf_test_util.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

using namespace opkit;
using namespace opkit::test;
using package::read_saved_model;
using package::SavedModelSummary;
using protobuf::WireError;

namespace {

// GraphDef: one NodeDef (name = 1, op = 2) and versions (producer = 1).
std::string
graph_def()
{
  std::string node = pb_len_field(1, "x") + pb_len_field(2, "Placeholder");
  return pb_len_field(1, node) + pb_len_field(4, pb_varint_field(1, 1087));
}

// MetaGraphDef: meta_info_def (tags = 4, tensorflow_version = 5), graph_def,
// and a signature_def map entry.
std::string
meta_graph(const std::string& tag = "serve")
{
  std::string info = pb_len_field(4, tag) + pb_len_field(5, "2.15.0");
  std::string signature =
    pb_len_field(1, "serving_default") + pb_len_field(2, pb_len_field(3, "tensorflow/serving/predict"));
  return pb_len_field(1, info) + pb_len_field(2, graph_def()) + pb_len_field(5, signature);
}

std::string
saved_model()
{
  return pb_varint_field(1, 1) + pb_len_field(2, meta_graph());
}

std::string
error_of(std::string_view bytes)
{
  try {
    read_saved_model(bytes);
  } catch (const WireError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

} // namespace

TEST(SavedModelProto, AcceptsAMinimalSavedModel)
{
  SavedModelSummary summary = read_saved_model(saved_model());
  EXPECT_EQ(summary.schema_version, 1u);
  ASSERT_EQ(summary.meta_graph_tags.size(), 1u);
  EXPECT_EQ(summary.meta_graph_tags[0], std::vector<std::string>{"serve"});
  // meta_info_def.tensorflow_version: the TF that wrote the model.
  EXPECT_EQ(summary.tensorflow_versions, std::vector<std::string>{"2.15.0"});
}

TEST(SavedModelProto, ATensorflowVersionMustBeAString)
{
  std::string info = pb_len_field(4, "serve") + pb_varint_field(5, 2);
  std::string bad = pb_varint_field(1, 1) + pb_len_field(2, pb_len_field(1, info));
  EXPECT_NE(error_of(bad).find("tensorflow_version"), std::string::npos) << error_of(bad);
  // A meta graph that does not say gives "".
  std::string quiet = pb_varint_field(1, 1) + pb_len_field(2, pb_len_field(1, pb_len_field(4, "serve")));
  EXPECT_EQ(read_saved_model(quiet).tensorflow_versions, std::vector<std::string>{""});
}

TEST(SavedModelProto, AcceptsSeveralMetaGraphsAndSkipsUnknownFields)
{
  std::string bytes = pb_len_field(2, meta_graph("serve")) + pb_varint_field(15, 3)
                      + pb_len_field(2, meta_graph("train"))
                      + pb_len_field(2, pb_len_field(2, graph_def()) + pb_varint_field(99, 1));
  SavedModelSummary summary = read_saved_model(bytes);
  EXPECT_EQ(summary.schema_version, 0u); // proto3 leaves out a 0
  ASSERT_EQ(summary.meta_graph_tags.size(), 3u);
  EXPECT_EQ(summary.meta_graph_tags[1], std::vector<std::string>{"train"});
  EXPECT_TRUE(summary.meta_graph_tags[2].empty());
  // An empty meta graph is a meta graph.
  EXPECT_EQ(read_saved_model(pb_len_field(2, "")).meta_graph_tags.size(), 1u);
}

TEST(SavedModelProto, RefusesNoMetaGraph)
{
  EXPECT_EQ(error_of(""), "byte 0: SavedModel: no meta graph (field 2, meta_graphs)");
  EXPECT_EQ(error_of(pb_varint_field(1, 1)), "byte 2: SavedModel: no meta graph (field 2, meta_graphs)");
}

TEST(SavedModelProto, RefusesWrongWireTypes)
{
  EXPECT_EQ(error_of(pb_len_field(1, "1") + pb_len_field(2, meta_graph())),
            "byte 0: SavedModel: field 1 (saved_model_schema_version) is LEN, not varint");
  EXPECT_EQ(error_of(pb_varint_field(1, 1) + pb_varint_field(2, 5)),
            "byte 2: SavedModel: field 2 (meta_graphs) is varint, not LEN");
  EXPECT_EQ(error_of(pb_len_field(2, pb_varint_field(2, 1))),
            "byte 2: meta_graphs[0]: field 2 (graph_def) is varint, not LEN");
  EXPECT_EQ(error_of(pb_len_field(2, pb_len_field(2, pb_varint_field(1, 4)))),
            "byte 4: meta_graphs[0].graph_def: field 1 (node) is varint, not LEN");
  EXPECT_EQ(error_of(pb_len_field(2, pb_len_field(1, pb_varint_field(4, 4)))),
            "byte 4: meta_graphs[0].meta_info_def: field 4 (tags) is varint, not LEN");
  // A GraphDef (a frozen graph named saved_model.pb) starts with field 1 as LEN.
  EXPECT_NE(error_of(graph_def()).find("field 1 (saved_model_schema_version) is LEN"), std::string::npos);
}

TEST(SavedModelProto, RefusesGarbageInsideAMetaGraph)
{
  std::string bytes = pb_varint_field(1, 1) + pb_len_field(2, "\xff\xff\xff");
  EXPECT_EQ(error_of(bytes), "byte 4: meta_graphs[0]: truncated field tag (the data ends inside a varint)");
  // The second meta graph holds a meta_info_def whose tags field runs past its end.
  std::string info = pb_tag(4, 2) + pb_varint(50) + "serve";
  bytes = pb_len_field(2, meta_graph()) + pb_len_field(2, pb_len_field(1, info));
  std::string error = error_of(bytes);
  EXPECT_NE(error.find("meta_graphs[1].meta_info_def: field 4 (LEN) of 50 bytes runs past the end (5 bytes left)"),
            std::string::npos)
    << error;
  // Garbage in the other submessages too.
  for (uint32_t number = 3; number <= 7; ++number) {
    error = error_of(pb_len_field(2, pb_len_field(number, "\x0f")));
    EXPECT_NE(error.find("meta_graphs[0]."), std::string::npos) << error;
  }
}

TEST(SavedModelProto, RefusesTruncationAndHugeLengths)
{
  std::string valid = saved_model();
  std::string error = error_of(valid.substr(0, valid.size() / 2));
  EXPECT_NE(error.find("runs past the end"), std::string::npos) << error;
  for (uint64_t length : {uint64_t(1) << 31, UINT64_MAX}) {
    error = error_of(pb_varint_field(1, 1) + pb_tag(2, 2) + pb_varint(length) + meta_graph());
    EXPECT_NE(error.find("byte 2: field 2 (LEN) of " + std::to_string(length) + " bytes runs past the end"),
              std::string::npos)
      << error;
    error = error_of(pb_len_field(2, pb_tag(2, 2) + pb_varint(length)));
    EXPECT_NE(error.find("meta_graphs[0]: field 2 (LEN)"), std::string::npos) << error;
  }
}

TEST(SavedModelProto, RefusesText)
{
  EXPECT_THROW(read_saved_model("saved_model_schema_version: 1\nmeta_graphs {\n  meta_info_def {\n  }\n}\n"),
               WireError);
  EXPECT_THROW(read_saved_model("hello, world\n"), WireError);
  EXPECT_THROW(read_saved_model("{\"features\": []}\n"), WireError);
}

// Every prefix, every one-byte change and random bytes: a summary or a
// WireError, never anything else.
TEST(SavedModelProto, HostileBytesNeverCrash)
{
  std::string valid = saved_model() + pb_len_field(2, meta_graph("train"));
  auto parse = [](std::string_view bytes) {
    try {
      read_saved_model(bytes);
    } catch (const WireError&) {
    }
  };
  for (size_t n = 0; n < valid.size(); ++n) {
    parse(std::string_view(valid).substr(0, n));
  }
  std::mt19937 random(7);
  for (size_t at = 0; at < valid.size(); ++at) {
    for (int i = 0; i < 8; ++i) {
      std::string changed = valid;
      changed[at] = static_cast<char>(random());
      parse(changed);
    }
  }
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(random() % 96, '\0');
    for (char& c : bytes) {
      c = static_cast<char>(random());
    }
    parse(bytes);
  }
}

// The fuzz seeds (tests/fuzz/corpus-src/saved_model_seeds.py, an independent
// writer) read as their names say.
TEST(SavedModelProto, FuzzSeedsReadAsMeant)
{
  namespace stdfs = std::filesystem;
  stdfs::path corpus = stdfs::path(OPKIT_TEST_SOURCE_DIR) / "tests/fuzz/corpus-saved-model";
  size_t seen = 0;
  for (const auto& entry : stdfs::directory_iterator(corpus)) {
    std::string name = entry.path().filename().string();
    std::string bytes = fs::read_file(entry.path());
    bool good = name == "seed.pb" || name == "two-meta-graphs.pb" || name == "unknown-fields.pb";
    if (good) {
      EXPECT_NO_THROW(read_saved_model(bytes)) << name;
    } else {
      EXPECT_THROW(read_saved_model(bytes), WireError) << name;
    }
    ++seen;
  }
  EXPECT_GE(seen, 18u);
  EXPECT_EQ(read_saved_model(fs::read_file(corpus / "two-meta-graphs.pb")).meta_graph_tags,
            (std::vector<std::vector<std::string>>{{"serve"}, {"train"}}));
}
