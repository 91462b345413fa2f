#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include <unistd.h>

namespace opkit::cli {

namespace {

namespace stdfs = std::filesystem;

std::string
lowercase_header_name(const std::string& header)
{
  return ascii_lower(header.substr(0, header.find(':')));
}

// The checksum headers (Artifactory/Nexus's X-Checksum-Sha256 and RFC 3230's
// Digest), then the user's. A user header of the same name replaces ours, so
// one name is never sent twice with two values.
std::vector<std::string>
request_headers(const Sha256Digest& digest, const std::vector<std::string>& user_headers)
{
  std::set<std::string> user_names;
  for (const std::string& header : user_headers) {
    user_names.insert(lowercase_header_name(header));
  }
  std::vector<std::string> headers;
  for (const std::string& ours : {"X-Checksum-Sha256: " + to_hex(digest), "Digest: sha-256=" + to_base64(digest)}) {
    if (user_names.count(lowercase_header_name(ours)) == 0) {
      headers.push_back(ours);
    }
  }
  headers.insert(headers.end(), user_headers.begin(), user_headers.end());
  return headers;
}

// Refused before hashing, so a typo is a usage error and not an I/O failure.
uintmax_t
input_file_size(const stdfs::path& file)
{
  fs::require_file(file, "file");
  return stdfs::file_size(file);
}

} // namespace

void
add_publish_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static std::string file;
  static std::string url;
  static std::vector<std::string> user_headers;
  static HttpOptions options;
  CLI::App* cmd = app.add_subcommand(
    "publish", "Upload a file to an http(s) URL with PUT (artifact servers, WebDAV, presigned object-store URLs)");
  cmd->add_option("file", file, "The file to upload")->required();
  cmd->add_option("url", url, "Where to PUT it (http:// or https://)")->required();
  cmd->add_option("-H,--header", user_headers, "Add a request header 'Name: value' (repeatable)")
    ->allow_extra_args(false); // one value per -H, so FILE and URL may follow
  cmd
    ->add_option("--retries", options.retries,
                 "Retries on connection errors, timeouts, 429 and 5xx, after 0.5 s, 1 s, 2 s, ... (default 3)")
    ->check(CLI::Range(0, 10));
  cmd->add_option("--cacert", options.ca_file, "Trust the CAs in this PEM file instead of the system bundle");
  add_json_flag(cmd, global.json, "opkit.publish/1", "Print what was published as JSON");
  cmd->callback([&global, &exit_code] {
    check_http_url(url);
    for (const std::string& header : user_headers) {
      check_http_header(header);
    }
    uintmax_t size = input_file_size(file);
    Sha256Digest digest = sha256_digest_file(file);
    options.headers = request_headers(digest, user_headers);
    options.limits = settings::net_limits();
    options.progress = verbosity() >= Verbosity::normal && ::isatty(STDERR_FILENO) == 1;
    HttpResult result = http_put_file(url, file, options);
    exit_code = static_cast<int>(ExitCode::ok);
    if (global.json) {
      fmt::print("{}\n", json_text({{"schema", "opkit.publish/1"},
                                    {"file", file},
                                    {"url", http_display_url(url)},
                                    {"status", result.status},
                                    {"reason", result.reason},
                                    {"bytes", size},
                                    {"sha256", to_hex(digest)},
                                    {"attempts", result.attempts}},
                                   2));
      return;
    }
    fmt::print("published {} -> {} ({} bytes, sha256 {}, HTTP {})\n", file, http_display_url(url), size, to_hex(digest),
               result.status);
  });
}

} // namespace opkit::cli
