// Running a helper program and keeping what it prints (the jobs pre-flight
// runs milarun-torch check-args this way).
#pragma once
#include <string>
#include <vector>

namespace milabench {

// Runs argv (argv[0] a path) with `input` on its stdin and returns its
// stdout. Throws std::runtime_error "ARGV0 ARGV1 failed (...)" when it
// cannot start or exits non-zero; its stderr passes through. The input goes
// through a pipe, not argv, so it has no size cap (one argv word is capped
// at 128 KiB on Linux). The program must read its input before it writes
// much output (check-args reads all of it first), or both sides wait.
std::string capture_output(const std::vector<std::string>& argv, const std::string& input);

}  // namespace milabench
