#pragma once
// Where results that could not be kept go, shared by the worker (writer) and
// `jobs --resume` (which moves them back).

#include <string>

namespace milabench {

// Where `milarun run` puts a result it could not write into `outdir` (disk
// full, read-only): ${TMPDIR:-/tmp}/milarun-unsaved/<hash of outdir's path>.
// `milarun jobs --resume` moves them back.
std::string unsaved_dir(const std::string& outdir);

}  // namespace milabench
