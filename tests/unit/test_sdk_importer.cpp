#include "opkit/sdk/importer.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using opkit::sdk::classify_entry;
using opkit::sdk::EntryKind;

TEST(SdkImporter, FindsHeadersUnderEveryKnownLayout)
{
  for (const char* path :
       {"tensorflow/include/tensorflow/core/framework/op.h", "tensorflow_core/include/tensorflow/core/framework/op.h",
        "tensorflow-1.12.0.data/purelib/tensorflow/include/tensorflow/core/framework/op.h",
        "site-packages/tensorflow/include/tensorflow/core/framework/op.h"}) {
    auto plan = classify_entry(path);
    EXPECT_EQ(plan.kind, EntryKind::header) << path;
    EXPECT_EQ(plan.dest, "include/tensorflow/core/framework/op.h") << path;
  }
}

TEST(SdkImporter, FindsTheFrameworkLibraryAndMetadata)
{
  EXPECT_EQ(classify_entry("tensorflow/libtensorflow_framework.so.2").dest, "lib/libtensorflow_framework.so.2");
  EXPECT_EQ(classify_entry("tensorflow-1.12.0.data/purelib/tensorflow/libtensorflow_framework.so").dest,
            "lib/libtensorflow_framework.so");
  EXPECT_EQ(classify_entry("tensorflow_core/libtensorflow_framework.so.1").kind, EntryKind::framework_library);
  EXPECT_EQ(classify_entry("tensorflow_cpu-2.10.1.dist-info/METADATA").dest, "dist-info/METADATA");
  EXPECT_EQ(classify_entry("tensorflow-1.12.0.dist-info/WHEEL").dest, "dist-info/WHEEL");
  EXPECT_EQ(classify_entry("tensorflow/python/platform/build_info.py").dest, "build_info.py");
}

TEST(SdkImporter, SkipsEverythingElse)
{
  for (const char* path : {"tensorflow/python/ops/array_ops.py", "tensorflow/python/_pywrap_tensorflow_internal.so",
                           "tensorflow/libtensorflow_cc.so.2", "tensorflow/include", "tensorflow/include/",
                           "numpy/include/numpy/arrayobject.h", "tensorflow_cpu-2.10.1.dist-info/RECORD",
                           "tensorflow/compiler/libtensorflow_framework.so.2"}) {
    EXPECT_EQ(classify_entry(path).kind, EntryKind::skip) << path;
  }
}

TEST(SdkImporter, RefusesEntriesThatEscape)
{
  for (const char* path :
       {"tensorflow/include/../../../etc/passwd", "tensorflow/include/a/../../../x.h", "tensorflow/include/.."}) {
    try {
      classify_entry(path);
      ADD_FAILURE() << "accepted " << path;
    } catch (const opkit::Error& e) {
      EXPECT_EQ(e.code(), opkit::ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("would be written outside the SDK folder"), std::string::npos);
    }
  }
  // Leading "../" before the package folder does not matter: only the destination does.
  EXPECT_EQ(classify_entry("../../tensorflow/include/x.h").dest, "include/x.h");
  EXPECT_EQ(classify_entry("/abs/tensorflow/include/x.h").dest, "include/x.h");
}
