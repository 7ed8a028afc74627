// Exit statuses of `milarun run` (the contract between a run and `milarun jobs`).
#pragma once

namespace milabench {

enum RunExit : int {
  kRunExitOk = 0,            // the workload succeeded; its result is where -o says
  kRunExitFailed = 1,        // the workload failed; a FAIL result is where -o says
  kRunExitUsage = 2,         // bad usage (unknown experiment or argument): nothing ran, no result
  kRunExitResultParked = 3,  // the result could not be written where -o says: it is in
                             // unsaved_dir(folder) (`jobs --resume` moves it back) or was printed on stdout
};

}  // namespace milabench
