#include "store/compare_ref.hpp"

#include <optional>
#include <stdexcept>
#include <tuple>

#include "store/history.hpp"
#include "store/recorder.hpp"

namespace milabench::store {

namespace {

// "@last": the newest suite run of the same machine and suite as `input`'s
// runs that started before it (the newest of them when `input` is not
// recorded). A lab's store holds other nodes' and other suites' runs: a
// comparison with one of those would judge unlike things.
SuiteRunRow last_before(ResultStore& s, const std::string& input) {
  const std::string self = input.empty() ? "" : absolute_dir(input);
  const auto all = s.suite_runs();  // oldest first
  std::optional<SuiteRunRow> mine;
  for (const auto& r : all)
    if (!self.empty() && r.info.outdir == self) mine = r;
  const std::optional<SuiteRunInfo> who = mine ? mine->info : folder_identity(input);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->info.outdir == self) continue;
    if (who && (it->info.machine != who->machine || it->info.suite != who->suite)) continue;
    if (mine && std::tie(it->info.started_at, it->id) > std::tie(mine->info.started_at, mine->id)) continue;
    return *it;
  }
  if (!who) throw std::invalid_argument("--compare @last: the store holds no other suite run than " + input);
  throw std::invalid_argument("--compare @last: the store holds no earlier suite run of suite \"" + who->suite +
                              "\" on " + who->machine + " than " + input +
                              "; pick one with --compare @ID (milarun history lists them)");
}

}  // namespace

nlohmann::json summary_for_ref(ResultStore& s, const std::string& ref, const std::string& input, std::string* label) {
  std::optional<SuiteRunRow> run;
  if (ref == "@last") {
    run = last_before(s, input);
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
