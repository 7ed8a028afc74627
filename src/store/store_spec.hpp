// Which store a command uses (docs/history.md): `--db SPEC` when given, else
// $MILARUN_DB, else $MILARUN_OUTROOT/milarun.sqlite, else
// `fallback_dir`/milarun.sqlite. "none" (flag or variable) means no store.
#pragma once
#include <string>

namespace milabench::store {

// "" for no store (or when nothing names one and `fallback_dir` is "").
std::string resolve_store_spec(const std::string& flag, const std::string& fallback_dir);

// The folder that holds `outdir` ("." for a relative name without a folder).
std::string parent_dir(const std::string& outdir);

}  // namespace milabench::store
