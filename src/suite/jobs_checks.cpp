#include "suite/jobs_checks.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>

#include "results/input_checks.hpp"
#include "suite/run_outcome.hpp"
#include "sys/dirs.hpp"
#include "sys/disk_space.hpp"

namespace milabench {

std::string jobs_options_problem(const JobsOptions& o) {
  if (o.repeat < 1) {
    return fmt::format("error: --repeat must be at least 1 (got {})", o.repeat);
  }
  if (o.devices < 0 || (o.devices_given && o.devices == 0)) {
    return fmt::format("error: --devices must be at least 1 (got {}); leave it out to use every device found",
                       o.devices);
  }
  if (o.max_duration_given && o.max_duration_s == 0) {
    return "error: --max-duration must be a positive number of seconds (got 0); leave it out to keep each test's "
           "\"timeout\"";
  }
  if (!(o.min_duration_s >= 0) || !std::isfinite(o.min_duration_s)) {
    return fmt::format("error: --min-duration must be a number of seconds >= 0 (got {})", o.min_duration_s);
  }
  if (o.max_duration_s < 0 || std::isnan(o.max_duration_s) || o.max_duration_s > kMaxTimeoutSeconds) {
    return fmt::format("error: --max-duration must be a positive number of seconds, at most {:g} (got {})",
                       kMaxTimeoutSeconds, o.max_duration_s);
  }

  if (!std::isfinite(o.min_free_mb) || o.min_free_mb > kMaxMinFreeMb) {
    return fmt::format("error: --min-free-mb must be a number of MiB from 0 to {:g}", kMaxMinFreeMb);
  }
  if (o.min_duration_s > 0 && o.max_duration_s > 0 && o.min_duration_s >= o.max_duration_s) {
    return fmt::format(
        "error: --min-duration {:g} is not below --max-duration {:g}: every run would time out; lower "
        "--min-duration or raise --max-duration",
        o.min_duration_s, o.max_duration_s);
  }

  return "";
}

namespace {

// The repeat index of a job id ("3.0" -> 3, "1-rank2" -> 1); -1 when none.
int repeat_of(const std::string& job_id) {
  std::size_t n = 0;
  while (n < job_id.size() && n < 9 && std::isdigit(static_cast<unsigned char>(job_id[n]))) ++n;
  return n == 0 ? -1 : std::stoi(job_id.substr(0, n));
}

}  // namespace

// "" when `dir` exists as a writable folder, or its closest existing parent
// is one (so make_dirs can create it); else why not.
std::string outdir_problem(const std::string& dir) {
  std::string p = dir;
  while (!p.empty()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return p + " is not a directory";
      return ::access(p.c_str(), W_OK | X_OK) == 0 ? "" : std::string(std::strerror(EACCES));
    }
    if (p == "." || p == "/") return "";
    while (!p.empty() && p.back() == '/') p.pop_back();
    const auto slash = p.rfind('/');
    p = slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
  }
  return "";
}

bool enough_space(const std::string& dir, double min_free_mb, std::ostream& err) {
  try {
    double free_mb = system_disk_space().available_bytes(dir) / (1024.0 * 1024.0);
    if (free_mb >= min_free_mb) return true;
    err << fmt::format("error: {} has {:.1f} MiB free, less than the {:.0f} MiB a run needs for its result and log\n",
                       dir, free_mb, min_free_mb);
    return false;
  } catch (const std::exception& e) {
    err << "warning: " << e.what() << "\n";
    return true;
  }
}

std::string free_space_note(const std::string& dir) {
  try {
    return fmt::format("{:.1f} MiB free there", system_disk_space().available_bytes(dir) / (1024.0 * 1024.0));
  } catch (const std::exception&) {
    return "its free space unknown";
  }
}

// Before a wave: an -o removed during the suite is made again (so later
// results are kept), with one line. False when it cannot be.
bool outdir_still_there(const std::string& outdir, std::ostream& err) {
  struct stat st {};
  if (::stat(outdir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return true;
  if (make_dirs(outdir)) {
    err << fmt::format(
        "warning: {} was removed during the suite; made it again (results written there before are "
        "gone)\n",
        outdir);
    return true;
  }
  err << fmt::format("error: {} was removed during the suite and cannot be made again: {}; stopped\n", outdir,
                     std::strerror(errno));
  return false;
}

// A --min-duration no shorter than a selected test's "timeout" (without
// --max-duration): every run of it would time out. One line, or "".
std::string min_duration_problem(const Profile& profile, const JobsOptions& o) {
  if (!(o.min_duration_s > 0) || o.max_duration_s > 0) return "";
  for (const auto& t : profile.tests)
    if ((o.names.empty() || std::find(o.names.begin(), o.names.end(), t.name) != o.names.end()) &&
        o.min_duration_s >= t.timeout_s)
      return fmt::format(
          "error: --min-duration {:g} is not below the \"timeout\" {:g} of test \"{}\" in {}: its runs "
          "would time out; lower --min-duration or raise the timeout (--max-duration)",
          o.min_duration_s, t.timeout_s, t.name, profile.path);
  return "";
}

// --resume with fewer repeats than the folder holds (the interrupted suite's
// --repeat N left out): its later repeats would stay unfinished silently.
void note_more_repeats(const JobPlan& plan, const JobsOptions& o, std::ostream& err) {
  std::set<std::string> names;
  for (const auto& wave : plan.waves)
    for (const auto& s : wave) names.insert(s.name);
  int most = 0, unfinished = 0;
  for (const auto& [key, r] : existing_results(o.outdir)) {
    const int rep = repeat_of(key.second);
    if (!names.count(key.first) || rep < o.repeat) continue;
    most = std::max(most, rep + 1);
    unfinished += !r.success && fixable_failure(r.failure_kind);
  }
  if (most > o.repeat)
    err << fmt::format(
        "note: {} holds results of {} repeats of these tests ({} of the later ones failed for a reason "
        "you can fix); this --resume runs {}: add --repeat {} to finish the suite\n",
        o.outdir, most, unfinished, o.repeat, most);
}

}  // namespace milabench
