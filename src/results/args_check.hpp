// The check-args protocol: how `milarun jobs` (no torch) asks
// `milarun-torch check-args --batch -` whether every planned test's
// arguments parse with its workload's flags and its dataset is present,
// before anything starts. Both sides use these functions and nothing else.
//   request  (jobs -> worker, on stdin): a JSON list of
//            {"test": NAME, "experiment": WORKLOAD, "arguments": [WORD, ...]}
//   response (worker -> jobs, on stdout, exit 0): one "TEST<TAB>PROBLEM" line
//            per test with a problem; no line for a test that is fine.
// A request the worker cannot read is its exit status 2 with one line on
// stderr; jobs then starts nothing (suite/jobs.cpp).
#pragma once
#include <string>
#include <vector>

namespace milabench {

// One test as `milarun run` will get it (argv after "--").
struct ArgsCheckRequest {
  std::string test, experiment;
  std::vector<std::string> arguments;
};

struct ArgsCheckProblem {
  std::string test, problem;  // problem: one line, as the worker's parser said it
};

std::string encode_args_check_requests(const std::vector<ArgsCheckRequest>& tests);

// Throws std::invalid_argument with the line to print ("--batch is not a JSON
// list", "--batch entries are {...}"). Non-string argument words are kept as
// their JSON text (a number stays "32").
std::vector<ArgsCheckRequest> decode_args_check_requests(const std::string& text);

// One response line, '\n'-terminated; tabs, newlines and other control
// characters in the test name or problem become '?' (terminal_safe), so the
// line stays one line and prints safely.
std::string encode_args_check_problem(const ArgsCheckProblem& p);

// Every well-formed line of a response; lines without a tab are ignored.
std::vector<ArgsCheckProblem> decode_args_check_problems(const std::string& text);

}  // namespace milabench
