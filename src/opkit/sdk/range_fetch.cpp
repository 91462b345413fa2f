#include "opkit/sdk/range_fetch.hpp"

#include "opkit/sdk/wheel_subset.hpp"
#include "opkit/sdk/zip_directory.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/http_range.hpp"
#include "opkit/util/log.hpp"

#include <optional>

namespace opkit::sdk {

namespace {

// The first request: enough of the end for the central directory of a large
// wheel (2.10.1's, 9884 members, is 1.1 MB), so it usually takes one request.
const std::uint64_t k_tail_bytes = 2 << 20;
// Ranges closer than this are fetched as one: a gap this size costs about a round trip.
const std::uint64_t k_max_gap = 1 << 20;
const std::size_t k_max_ranges = 32;

} // namespace

RangeFetch
fetch_wheel_subset(const std::string& url, const std::string& filename, const std::filesystem::path& output,
                   const HttpOptions& options)
{
  RangeFetch result;
  HttpRangeReader reader(url, options);
  auto account = [&result, &reader] {
    result.wire_bytes = reader.bytes_received();
    result.requests = reader.requests();
  };
  std::optional<std::string> tail = reader.open_tail(k_tail_bytes);
  account();
  if (!tail) {
    return result;
  }
  result.ranged = true;
  result.wheel_bytes = reader.size();
  std::uint64_t tail_start = reader.size() - tail->size();
  ZipDirectory directory =
    read_zip_directory(filename, reader.size(), *tail,
                       [&reader](std::uint64_t offset, std::uint64_t count) { return reader.read(offset, count); });
  std::vector<ZipMember> members = subset_members(directory);
  std::vector<ByteRange> wanted;
  std::uint64_t member_bytes = 0;
  for (const ZipMember& member : members) {
    wanted.push_back({member.offset, std::min(member.end, tail_start)}); // the tail is here already
    member_bytes += member.end - member.offset;
  }
  std::vector<ByteRange> ranges = coalesce_ranges(wanted, k_max_gap, k_max_ranges);
  std::uint64_t range_bytes = 0;
  for (const ByteRange& range : ranges) {
    range_bytes += range.end - range.first;
  }
  log_info("fetching {} of {} members ({:.1f} MB of {:.1f} MB) in {} range request{} ...", members.size(),
           directory.members.size(), member_bytes / 1e6, reader.size() / 1e6, ranges.size(),
           ranges.size() == 1 ? "" : "s");
  log_debug("ranges: {:.1f} MB with their gaps", range_bytes / 1e6);
  std::filesystem::path partial = output.string() + ".subset.partial";
  SubsetWriter writer(filename, partial, members);
  for (const ByteRange& range : ranges) {
    std::uint64_t at = range.first;
    reader.read(range.first, range.end - range.first, [&writer, &at](std::string_view data) {
      writer.feed(at, data);
      at += data.size();
    });
  }
  writer.feed(tail_start, *tail);
  writer.finish();
  account();
  std::error_code ec;
  std::filesystem::rename(partial, output, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    fail(ExitCode::system, "{}: cannot rename into place: {}", output, ec.message());
  }
  result.members = members.size();
  return result;
}

} // namespace opkit::sdk
