// `milarun report --compare @last` / `@ID`: a suite run of the store as the
// baseline, summarised by the same code as a results folder
// (report/summary.hpp summarize_results), so its verdicts are the same.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "store/result_store.hpp"

namespace milabench::store {

// Whether `compare` names a suite run of the store ("@..." ).
inline bool is_store_ref(const std::string& compare) { return !compare.empty() && compare[0] == '@'; }

// The summary of the suite run `ref` names: "@ID", or "@last" — the suite
// run before `input`'s (a results folder) of the same machine and suite
// (docs/history.md; "" or a file: the newest of any). `label` gets
// "@ID (machine, start, folder)". Throws
// std::invalid_argument with one line when `ref` is malformed or names no
// suite run; StoreError from the store.
nlohmann::json summary_for_ref(ResultStore& s, const std::string& ref, const std::string& input, std::string* label);

}  // namespace milabench::store
