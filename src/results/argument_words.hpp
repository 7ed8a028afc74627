#pragma once
// How a run's argument words are recorded (its identity in a result and in --resume).

#include <string>

namespace milabench {

// "1_000_000" -> "1000000" for numeric words; other words unchanged (as
// Python's int() reads them; `milarun run` records the normalised words).
std::string normalize_number_word(const std::string& word);

}  // namespace milabench
