#pragma once

#include "opkit/project/version.hpp"
#include "opkit/util/archive.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::package {

// The version `protoc --version` prints: "libprotoc 3.6.1" is 3.6.1. protoc
// 22 and later print "libprotoc 22.0" for what was 3.22.0 in the old numbering
// (the protobuf 4.22 Python runtime): returned as 3.22.0, so versions compare.
// Nothing when the output is not protoc's.
std::optional<project::Version>
parse_protoc_version(std::string_view output);

// The newest protoc whose output every target imports: the smallest protobuf
// minimum over the TF versions (configs/packages/easyrec.yaml), with the TF
// version that sets it.
struct ProtocBound
{
  project::Version max;
  std::string tf; // "1.12.0"
};

ProtocBound
protoc_bound(const std::vector<project::Version>& tf_versions);

// Whether a protoc version fits: at least the rules' protoc_min, at most `bound`.
bool
protoc_fits(const project::Version& protoc, const ProtocBound& bound);

struct ProtoFiles
{
  std::vector<ArchiveMember> members; // generated *_pb2.py; empty when the checkout's are packed
  std::string note;                   // what was done
};

// easy_rec/python/protos/*_pb2.py for the package: the checkout's own when every
// *.proto has one, else generated as scripts/gen_proto.sh does (the checkout
// root as proto path) by a protoc from `protoc_option`, else $OPKIT_PROTOC,
// else PATH. No suitable protoc (missing, older than protoc_min or newer than
// the bound) is Error(missing) naming the version found and needed and how to
// get one; a .proto protoc rejects is Error(usage). Writes nothing in the checkout.
ProtoFiles
easyrec_proto_files(const std::filesystem::path& easyrec_dir, const std::vector<project::Version>& tf_versions,
                    const std::filesystem::path& protoc_option);

} // namespace opkit::package
