// Checks shared by the 2026 language-model workload tests (gpt2_test.cpp,
// llama_test.cpp): the result of a tiny CPU run on llmc_tiny256 and the loss
// canary's failure kind.
#pragma once
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "generated_data.hpp"
#include "run/run_errors.hpp"
#include "test_support.hpp"

namespace milabench::test {

// Changing token 10 of a 16-token sequence leaves the logits of positions
// 0..9 bit-identical (the past does not see the future) and changes later
// ones. `m`: a model holder over vocabulary >= 256 with forward(idx).
template <class Model>
void expect_causal(Model& m) {
  torch::manual_seed(0);
  auto x = torch::randint(0, 256, {1, 16}, torch::kLong);
  auto y = x.clone();
  y.index_put_({0, 10}, (x.index({0, 10}) + 1) % 256);
  torch::NoGradGuard ng;
  torch::Tensor a = m->forward(x), b = m->forward(y);
  EXPECT_TRUE(torch::equal(a.slice(1, 0, 10), b.slice(1, 0, 10)));
  EXPECT_FALSE(torch::allclose(a.slice(1, 10), b.slice(1, 10)));
}

// The tiny dataset at 2 % (80 k train tokens), made once for the binary.
inline std::string tiny_token_root() { return generated_dataroot("llmc_tiny256", 0.02); }

// `r`: a CPU run of `steps` steps of `per_step` tokens over vocabulary 256
// that barely trained: the count, float32, MFU null with a CPU reason and a
// positive FLOP count, peak memory from the RSS, the last loss near ln(256).
inline void expect_tiny_lm_result(const RunOutcome& r, int64_t steps, int64_t per_step) {
  EXPECT_EQ(r.count, steps * per_step);
  const auto& m = r.extra["metrics"];
  EXPECT_EQ(m["steps"], steps);
  EXPECT_EQ(m["precision"], "float32");
  EXPECT_TRUE(m["mfu"]["value"].is_null()) << m.dump();
  EXPECT_NE(m["mfu"]["why"].get<std::string>().find("CPU"), std::string::npos);
  EXPECT_GT(m["mfu"]["flops_per_unit"].get<double>(), 0);
  EXPECT_EQ(m["peak_memory"]["source"], "peak_rss");
  EXPECT_GT(m["peak_memory"]["bytes"].get<int64_t>(), 0);
  EXPECT_NEAR(m["last_loss"].get<double>(), std::log(256.0), 0.3);
  EXPECT_EQ(r.extra["dataset"]["name"], "llmc_tiny256");
}

// Runs `workload` on the tiny data, expecting a FAIL of kind bad_result whose
// message contains `why`.
inline void expect_bad_result(const std::string& workload, const std::vector<std::string>& args, int64_t max_count,
                              const std::string& why) {
  try {
    run_workload(workload, args, max_count, tiny_token_root());
    ADD_FAILURE() << "the canary let a broken " << workload << " run through";
  } catch (...) {
    const RunFailure f = classify_current_exception();
    EXPECT_EQ(f.kind, FailureKind::BadResult) << f.message;
    EXPECT_NE(f.message.find(why), std::string::npos) << f.message;
  }
}

}  // namespace milabench::test
