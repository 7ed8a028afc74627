// The checks `milarun jobs` makes before it starts anything, and the notes
// it prints about the output folder (jobs.cpp runs the suite).
#pragma once
#include <ostream>
#include <string>

#include "suite/jobs.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"

namespace milabench {

// One "error: ..." line for options out of range or contradicting each
// other (--min-duration not below --max-duration, --devices 0 given, ...);
// "" when they are usable.
std::string jobs_options_problem(const JobsOptions& o);

// A --min-duration no shorter than a selected test's "timeout" (without
// --max-duration): every run of it would time out. One line, or "".
std::string min_duration_problem(const Profile& profile, const JobsOptions& o);

// "" when `dir` exists as a writable folder, or its closest existing parent
// is one (so make_dirs can create it); else why not.
std::string outdir_problem(const std::string& dir);

// Whether `dir`'s filesystem has min_free_mb free (else one line on err);
// true when it cannot tell (a warning).
bool enough_space(const std::string& dir, double min_free_mb, std::ostream& err);

// "N.N MiB free there" for `dir`'s filesystem, or "its free space unknown".
std::string free_space_note(const std::string& dir);

// Before a wave: an -o removed during the suite is made again (so later
// results are kept), with one line. False when it cannot be.
bool outdir_still_there(const std::string& outdir, std::ostream& err);

// --resume with fewer repeats than the folder holds (the interrupted suite's
// --repeat N left out): one note saying how many and how to finish.
void note_more_repeats(const JobPlan& plan, const JobsOptions& o, std::ostream& err);

}  // namespace milabench
