// Fuzz target: the profile reader (suite/profile.hpp). Contract under test:
// any text either parses or throws ProfileError with a one-line message;
// no other exception, crash or sanitizer report. A parsed profile is then
// run through map_arguments, as `jobs` does.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "suite/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    milabench::Profile p = milabench::parse_profile(text, "fuzz/standard.json");
    for (const auto& t : p.tests) {
      auto words = milabench::map_arguments(t.arguments, {"--max-count", "10"});
      (void)words;
    }
    (void)milabench::profile_test_names(p);
  } catch (const milabench::ProfileError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();  // messages are one line
  }
  return 0;
}
