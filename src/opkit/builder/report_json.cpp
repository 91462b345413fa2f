#include "opkit/builder/report_json.hpp"
#include "opkit/util/whole_numbers.hpp"

#include <cctype>
#include <cmath>

namespace opkit::builder {

namespace {

Json
library_json(const LibraryResult& library)
{
  Json check = nullptr;
  if (library.check) {
    check = {{"loads", library.check->loads},
             {"reused", library.check_reused},
             {"target", library.check->target},
             {"findings", library.check->findings.size()}};
  }
  return {{"name", library.name}, {"path", library.library.string()}, {"check", check}};
}

Json
target_json(const TargetResult& target, bool dry_run)
{
  Json libraries = Json::array();
  for (const LibraryResult& library : target.libraries) {
    libraries.push_back(library_json(library));
  }
  Json steps = Json::array();
  for (const PlannedStep& step : target.steps) {
    steps.push_back({{"kind", step.kind}, {"output", step.output}, {"command", step.command}});
  }
  Json cache = nullptr;
  if (target.cache) {
    cache = {
      {"hits", target.cache->hits}, {"remote_hits", target.cache->remote_hits}, {"misses", target.cache->misses}};
  }
  std::string status = target_status(target, dry_run);
  for (char& c : status) {
    c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return {
    {"spec", target.spec},
    {"sdk", target.sdk_id},
    {"version", target.version},
    {"dir", target.dir.string()},
    {"status", status},
    {"ok", target.ok},
    {"up_to_date", target.up_to_date},
    {"compiled", target.compiled},
    {"pch_compiles", target.pch_compiles},
    {"seconds", static_cast<double>(rounded(target.seconds * 1000)) / 1000},
    {"log", target.log_file.empty() ? Json(nullptr) : Json(target.log_file.string())},
    {"libraries", libraries},
    {"skipped", target.skipped},
    {"portable", target.portable.empty() || (!target.ok && target.loads()) ? Json(nullptr) : Json(target.portable)},
    {"cache", cache},
    {"steps", steps}};
}

} // namespace

std::string
target_status(const TargetResult& target, bool dry_run)
{
  return target.nothing_to_build ? "skipped"
         : dry_run               ? "planned"
         : !target.loads()       ? "CHECK FAILED"
         : !target.ok            ? "FAILED"
         : target.up_to_date     ? "up to date"
                                 : "built";
}

Json
to_json(const BuildReport& report)
{
  Json targets = Json::array();
  for (const TargetResult& target : report.targets) {
    targets.push_back(target_json(target, report.dry_run));
  }
  return {
    {"schema", "opkit.build/1"},
    {"ok", report.ok()},
    {"dry_run", report.dry_run},
    {"compile_commands", report.compile_commands.empty() ? Json(nullptr) : Json(report.compile_commands.string())},
    {"targets", targets}};
}

} // namespace opkit::builder
