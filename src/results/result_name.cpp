#include "results/result_name.hpp"

#include <fmt/format.h>
#include <sys/time.h>

#include <cctype>
#include <ctime>

namespace milabench {

std::string result_stamp(long long epoch_us) {
  const std::time_t secs = static_cast<std::time_t>(epoch_us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return fmt::format("{}-{:06d}", stamp, epoch_us % 1000000);
}

std::string result_file_name(const std::string& name, const std::string& job_id, bool failed, long long epoch_us) {
  if (epoch_us < 0) {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    epoch_us = static_cast<long long>(tv.tv_sec) * 1000000 + tv.tv_usec;
  }
  return fmt::format("{}.J{}{}.{}.json", name, job_id, failed ? ".FAIL" : "", result_stamp(epoch_us));
}

namespace {

bool is_stamp(const std::string& s) {  // YYYYmmdd-HHMMSS-ffffff
  if (s.size() != 22 || s[8] != '-' || s[15] != '-') return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != 8 && i != 15 && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool is_job_id(const std::string& id) {
  return !id.empty() && std::isdigit(static_cast<unsigned char>(id[0])) &&
         id.find_first_not_of("0123456789.-rank") == std::string::npos;
}

}  // namespace

std::optional<ResultName> parse_result_file_name(const std::string& file) {
  const std::string ext = ".json";
  if (file.size() <= ext.size() + 23 || file.compare(file.size() - ext.size(), ext.size(), ext) != 0) return {};
  const std::string base = file.substr(0, file.size() - ext.size());
  const auto dot = base.rfind('.');
  if (dot == std::string::npos || !is_stamp(base.substr(dot + 1))) return {};
  ResultName r;
  r.stamp = base.substr(dot + 1);
  std::string head = base.substr(0, dot);  // name.J<id>[.FAIL]
  if (head.size() > 5 && head.compare(head.size() - 5, 5, ".FAIL") == 0) {
    r.failed = true;
    head.resize(head.size() - 5);
  }
  // The test name may hold ".J" itself: take the last ".J" whose tail is a job id.
  for (auto j = head.rfind(".J"); j != std::string::npos && j > 0; j = head.rfind(".J", j - 1)) {
    const std::string id = head.substr(j + 2);
    if (is_job_id(id)) {
      r.name = head.substr(0, j);
      r.job_id = id;
      return r;
    }
  }
  return {};
}

}  // namespace milabench
