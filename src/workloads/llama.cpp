// llama: a Llama-3.2-1B-shaped model (models/llama.hpp) trained as gpt2 is
// (llm.c's loop, the 2026 profile's common rules), on llm.c token shards in
// Llama 3's variant (magic 20240801, version 7, uint32 tokens; dataset
// llmc_llama3). One step: B*T+1 contiguous tokens from the host reader,
// zero_grad(set_to_none), forward under bf16 autocast on CUDA (float32
// master weights; float32 on the CPU), the mean cross-entropy over the
// vocabulary, backward, global-norm clip 1.0, the step's learning rate
// (linear warm-up over --warmup-steps, then constant), AdamW (betas
// 0.9/0.95, eps 1e-8, weight decay on 2-D parameters only), then the loss and
// the gradient norm read on the host. Count unit: tokens, B*T per step.
// Beside the rate: MFU (6N + 6LCT per token over the device's dense bf16
// peak), peak memory and the loss canary; the step and the loop are
// training/transformer_training.hpp's: a failed canary is a FAIL of kind
// bad_result.
#include "models/llama.hpp"

#include <torch/torch.h>

#include <stdexcept>

#include "training/session.hpp"
#include "training/token_loader.hpp"
#include "training/transformer_training.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class LlamaWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "llm.c token shards (llmc_llama3, llmc_tiny256)")->capture_default_str();
    app.add_option("--batch-size", batch_, "sequences per step (B)")->capture_default_str();
    app.add_option("--seq-len", cfg_.block_size, "tokens per sequence (T, the block size)")->capture_default_str();
    app.add_option("--n-layer", cfg_.n_layer, "transformer blocks")->capture_default_str();
    app.add_option("--n-embd", cfg_.n_embd, "channels (hidden size)")->capture_default_str();
    app.add_option("--n-head", cfg_.n_head, "query heads")->capture_default_str();
    app.add_option("--n-kv-head", cfg_.n_kv_head, "key/value heads (GQA)")->capture_default_str();
    app.add_option("--ffn-hidden", cfg_.ffn_hidden, "SwiGLU hidden size")->capture_default_str();
    app.add_option("--vocab-size", cfg_.vocab_size, "vocabulary (embedding rows, tied head)")->capture_default_str();
    app.add_option("--rope-theta", cfg_.rope_theta, "RoPE base")->capture_default_str();
    app.add_option("--norm-eps", cfg_.norm_eps, "RMSNorm epsilon")->capture_default_str();
    app.add_option("--init-std", cfg_.init_std, "initialisation std (HF initializer_range 0.02)")
        ->capture_default_str();
    add_training_options(app, t_);
  }

  void run(Session& s) override {
    if (std::string why = cfg_.problem(); !why.empty()) throw std::invalid_argument("llama: " + why);
    run_language_model<Llama>(s, t_,
                              {"llama",
                               dataset_,
                               cfg_.vocab_size,
                               batch_,
                               cfg_.block_size,
                               {{"n_layer", cfg_.n_layer},
                                {"n_embd", cfg_.n_embd},
                                {"n_head", cfg_.n_head},
                                {"n_kv_head", cfg_.n_kv_head},
                                {"ffn_hidden", cfg_.ffn_hidden},
                                {"seq_len", cfg_.block_size},
                                {"vocab_size", cfg_.vocab_size},
                                {"rope_theta", cfg_.rope_theta},
                                {"rope_scaling", "none"}},
                               "6N + 6LCT per token as llm.c (N = all parameters, tied head once), tokens/s of the "
                               "steps after the warm-up, over the dense bf16 peak"},
                              cfg_, llama_flops_per_token);
  }

 private:
  std::string dataset_ = "llmc_llama3";
  int64_t batch_ = 8;
  LlamaConfig cfg_ = LlamaConfig::llama_3_2_1b();
  // Calibrated on the tiny config (docs/fidelity.md, llama).
  TrainingOptions t_{AdamWHyper{}, 0.75, 200};
};

}  // namespace

std::unique_ptr<Workload> make_llama() { return std::make_unique<LlamaWorkload>(); }

}  // namespace milabench
