#include "store/compare_ref.hpp"

#include <optional>
#include <stdexcept>

#include "store/history.hpp"
#include "store/recorder.hpp"

namespace milabench::store {

nlohmann::json summary_for_ref(ResultStore& s, const std::string& ref, const std::string& input, std::string* label) {
  std::optional<SuiteRunRow> run;
  if (ref == "@last") {
    const std::string self = input.empty() ? "" : absolute_dir(input);
    const auto all = s.suite_runs();
    for (auto it = all.rbegin(); it != all.rend() && !run; ++it)
      if (it->info.outdir != self) run = *it;
    if (!run) throw std::invalid_argument("--compare @last: the store holds no other suite run than " + input);
  } else {
    const std::string digits = ref.substr(1);
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--compare " + ref + ": expected @last or @ID (an id of `milarun history`)");
    run = s.suite_run_by_id(std::stoll(digits));
    if (!run) throw std::invalid_argument("--compare " + ref + ": no suite run with that id (see `milarun history`)");
  }
  if (label)
    *label = "@" + std::to_string(run->id) + " (" + run->info.machine + ", " + run->info.started_at + ", " +
             run->info.outdir + ")";
  std::vector<std::string> ignored;  // the store holds result documents only
  return suite_summary(s, run->id, ignored);
}

}  // namespace milabench::store
