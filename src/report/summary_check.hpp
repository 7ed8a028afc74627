// Validation of the JSON files `milarun report` reads besides result files:
// weights and summaries (a baseline, or a summary given as input). Each
// check returns "" when the document is usable, else one line naming the
// file, the test and the key, and what is wrong (docs/reliability.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace milabench {

// {test: {"weight": w}} or {test: w}; w a finite number in [0, 1e6].
std::string weights_problem(const nlohmann::json& weights, const std::string& path);

// {test: {n, failures, train: {n, mean, std, min, max} | null, pergpu, ...}}
// as `milarun summary` writes it and baselines/*/*.json hold: n and failures
// whole numbers with 0 <= failures <= n; train.mean (and every pergpu mean)
// finite, > 0 and at most 1e12 examples/s; std finite and >= 0; min <= max.
std::string summary_problem(const nlohmann::json& summary, const std::string& path);

}  // namespace milabench
