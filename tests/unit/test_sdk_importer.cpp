#include "opkit/sdk/importer.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

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

// What `import tensorflow` loads is read for its index only (and never fetched).
TEST(SdkImporter, ProcessLibrariesAreIndexedNotKept)
{
  EXPECT_EQ(classify_entry("tensorflow/python/_pywrap_tensorflow_internal.so").kind, EntryKind::process_library);
  EXPECT_EQ(classify_entry("tensorflow_core/python/_pywrap_tensorflow_internal.so").dest,
            "process/_pywrap_tensorflow_internal.so");
  EXPECT_EQ(classify_entry("tensorflow/libtensorflow_cc.so.2").dest, "process/libtensorflow_cc.so.2");
}

TEST(SdkImporter, SkipsEverythingElse)
{
  for (const char* path :
       {"tensorflow/python/ops/array_ops.py", "tensorflow/python/_pywrap_something_else.so", "tensorflow/include",
        "tensorflow/include/", "numpy/include/numpy/arrayobject.h", "tensorflow_cpu-2.10.1.dist-info/RECORD",
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

TEST(SdkImporter, RefusesNamesNoFileSystemHolds)
{
  // Once "cannot create: File name too long" naming the staging folder: exit 4, a 65 KB line.
  std::string deep; // five parts of 250 bytes: each fits, the whole does not
  for (int i = 0; i < 5; ++i) {
    deep += std::string(250, 'c') + "/";
  }
  for (const std::string& path :
       {"tensorflow/include/" + std::string(65000, 'a') + ".h", "tensorflow/include/" + std::string(256, 'b') + "/x.h",
        "tensorflow/include/" + deep + ".h"}) {
    try {
      classify_entry(path);
      ADD_FAILURE() << "accepted a name of " << path.size() << " bytes";
    } catch (const opkit::Error& e) {
      EXPECT_EQ(e.code(), opkit::ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("a name longer than opkit keeps"), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 400u);
    }
  }
  EXPECT_EQ(classify_entry("tensorflow/include/" + std::string(253, 'd') + ".h").kind, EntryKind::header);
}

TEST(SdkImporter, TheDistributionIsTheDistInfoThatOwnsTheFramework)
{
  using opkit::sdk::dist_info_owns_framework;
  // RECORD rows as pip writes them into site-packages, and as a wheel carries them.
  EXPECT_TRUE(dist_info_owns_framework("tensorflow/__init__.py,sha256=x,29449\n", ""));
  EXPECT_TRUE(dist_info_owns_framework("tensorflow/libtensorflow_framework.so.2,sha256=x,1\n", ""));
  EXPECT_TRUE(
    dist_info_owns_framework("tensorflow-1.12.0.data/purelib/tensorflow/libtensorflow_framework.so,sha256=x,1\n", ""));
  EXPECT_TRUE(dist_info_owns_framework("\"tensorflow_core/__init__.py\",sha256=x,1\n", ""));
  EXPECT_TRUE(dist_info_owns_framework("", "tensorflow\nthird_party\n"));
  // Siblings: their own packages, never the framework.
  EXPECT_FALSE(dist_info_owns_framework("tensorflow_io_gcs_filesystem/__init__.py,sha256=x,1\n"
                                        "tensorflow_io_gcs_filesystem/core/python/ops/libtensorflow_io_gcs.so,,\n",
                                        "tensorflow_io_gcs_filesystem\n"));
  EXPECT_FALSE(dist_info_owns_framework("tensorflow_estimator/__init__.py,sha256=x,1\n"
                                        "tensorflow_estimator/python/estimator/tensorflow/__init__.py,,\n",
                                        "tensorflow_estimator\n"));
  EXPECT_FALSE(dist_info_owns_framework("", ""));
}

TEST(SdkImporter, FindsTheOwningDistInfoAmongSeveralInSitePackages)
{
  namespace fs = opkit::fs;
  fs::TempDir site;
  auto dist_info = [&](const std::string& name, const std::string& record, const std::string& top_level) {
    std::filesystem::create_directories(site.path() / name);
    fs::write_file_atomic(site.path() / name / "METADATA", "Metadata-Version: 2.1\nName: " + name + "\n");
    fs::write_file_atomic(site.path() / name / "RECORD", record);
    if (!top_level.empty()) {
      fs::write_file_atomic(site.path() / name / "top_level.txt", top_level);
    }
  };
  std::filesystem::create_directories(site.path() / "tensorflow");
  // Names sort around the owner's, so neither the first nor the last tensorflow*.dist-info is picked by accident.
  dist_info("tensorboard-2.15.2.dist-info", "tensorboard/__init__.py,sha256=x,1\n", "tensorboard\n");
  dist_info("tensorflow_cpu-2.15.1.dist-info",
            "tensorflow/__init__.py,sha256=x,1\ntensorflow/libtensorflow_framework.so.2,sha256=x,2\n", "");
  dist_info("tensorflow_estimator-2.15.0.dist-info", "tensorflow_estimator/__init__.py,sha256=x,1\n",
            "tensorflow_estimator\n");
  dist_info("tensorflow_io_gcs_filesystem-0.37.1.dist-info", "tensorflow_io_gcs_filesystem/__init__.py,,\n",
            "tensorflow_io_gcs_filesystem\n");
  EXPECT_EQ(opkit::sdk::find_framework_dist_info(site.path()).filename(), "tensorflow_cpu-2.15.1.dist-info");

  // intel-tensorflow: a name not starting with "tensorflow", found by its top_level.txt alone.
  fs::TempDir intel;
  std::filesystem::create_directories(intel.path() / "intel_tensorflow-2.10.0.dist-info");
  fs::write_file_atomic(intel.path() / "intel_tensorflow-2.10.0.dist-info/top_level.txt", "tensorflow\n");
  std::filesystem::create_directories(intel.path() / "tensorflow_io_gcs_filesystem-0.37.1.dist-info");
  EXPECT_EQ(opkit::sdk::find_framework_dist_info(intel.path()).filename(), "intel_tensorflow-2.10.0.dist-info");

  fs::TempDir none;
  std::filesystem::create_directories(none.path() / "tensorflow_estimator-2.15.0.dist-info");
  EXPECT_TRUE(opkit::sdk::find_framework_dist_info(none.path()).empty());
}

// configs/frameworks/torch.yaml's sdk: section: headers, three libraries, version.py.
TEST(SdkImporter, TorchWheelKeepsWhatItsTableNames)
{
  EXPECT_EQ(classify_entry("torch/include/torch/library.h").kind, EntryKind::header);
  EXPECT_EQ(classify_entry("torch/include/torch/library.h").dest, "include/torch/library.h");
  EXPECT_EQ(classify_entry("torch/include/ATen/core/dispatch/Dispatcher.h").dest,
            "include/ATen/core/dispatch/Dispatcher.h");
  for (const char* library : {"libc10.so", "libtorch_cpu.so", "libtorch.so"}) {
    auto plan = classify_entry(std::string("torch/lib/") + library);
    EXPECT_EQ(plan.kind, EntryKind::framework_library) << library;
    EXPECT_EQ(plan.dest, std::string("lib/") + library);
  }
  EXPECT_EQ(classify_entry("torch/version.py").kind, EntryKind::version_file);
  EXPECT_EQ(classify_entry("torch/version.py").dest, "version.py");
  EXPECT_EQ(classify_entry("torch-2.5.1+cu124.dist-info/METADATA").dest, "dist-info/METADATA");
  EXPECT_EQ(classify_entry("torch-2.5.1+cu124.dist-info/WHEEL").dest, "dist-info/WHEEL");
}

TEST(SdkImporter, TorchWheelSkipsTheRest)
{
  for (const char* path :
       {"torch/lib/libtorch_cuda.so", "torch/lib/libshm.so", "torch/lib/libtorch_global_deps.so",
        "torch/_C.cpython-310-x86_64-linux-gnu.so", "torch/__init__.py", "torch/include", "torch/utils/version.py",
        "torch/lib/sub/libc10.so", "torchgen/packaged/x.h", "functorch/include/x.h", "site-packages/torch/include/x.h",
        "torch-2.5.1.dist-info/RECORD"}) {
    EXPECT_EQ(classify_entry(path).kind, EntryKind::skip) << path;
  }
  EXPECT_THROW(classify_entry("torch/include/../../x.h"), opkit::Error);
  // The OpenMP runtime libtorch_cpu.so needs is kept (the load probe loads it), under either name.
  EXPECT_EQ(classify_entry("torch/lib/libgomp-a34b3233.so.1").dest, "lib/libgomp-a34b3233.so.1");
  EXPECT_EQ(classify_entry("torch/lib/libgomp.so.1").dest, "lib/libgomp.so.1");
}

TEST(SdkImporter, TheTorchDistInfoOwnsItsFramework)
{
  EXPECT_TRUE(
    opkit::sdk::dist_info_owns_framework("torch/__init__.py,sha256=x,1\ntorch/lib/libc10.so,sha256=x,2\n", ""));
  EXPECT_FALSE(opkit::sdk::dist_info_owns_framework("torchvision/__init__.py,sha256=x,1\n", ""));
}
