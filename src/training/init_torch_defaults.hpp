// For a workload whose original parsed init_torch's arguments with its own
// defaults (rnn_translator.py: --seed 100, --workers 8; minigrid.py with
// babyai's parser: --seed 1, --workers 8): changes the defaults of the
// harness's --seed and --workers on `app`, when they are registered there.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>

namespace milabench {

inline void set_init_torch_defaults(CLI::App& app, int64_t seed, int workers) {
  if (auto* o = app.get_option_no_throw("--seed")) o->default_val(seed);
  if (auto* o = app.get_option_no_throw("--workers")) o->default_val(workers);
}

}  // namespace milabench
