// Result file names: "<name>.J<job_id>[.FAIL].<YYYYmmdd-HHMMSS-ffffff>.json",
// the stamp in UTC as the original's (datetime.utcnow()). The only code that
// makes or reads that shape.
#pragma once
#include <optional>
#include <string>

namespace milabench {

struct ResultName {
  std::string name;     // test name (may contain dots)
  std::string job_id;   // "<repeat>.<device>", "<repeat>", "<repeat>-rank<r>", ...
  bool failed = false;  // ".FAIL" present
  std::string stamp;    // "YYYYmmdd-HHMMSS-ffffff"
};

// The file name for a result written now (`epoch_us`: microseconds since the
// epoch; < 0 = the current time).
std::string result_file_name(const std::string& name, const std::string& job_id, bool failed, long long epoch_us = -1);

// The UTC stamp for `epoch_us` ("YYYYmmdd-HHMMSS-ffffff").
std::string result_stamp(long long epoch_us);

// Parses a file name (no folder) of that shape; nullopt for any other name.
// The job id must start with a digit and hold only digits, '.', '-', "rank".
std::optional<ResultName> parse_result_file_name(const std::string& file);

}  // namespace milabench
