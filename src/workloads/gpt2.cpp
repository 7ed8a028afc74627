// gpt2: GPT-2 124M (llm.c's d12) trained as llm.c's train_gpt2.py trains it,
// on llm.c token shards (data/token_shards.hpp). One step: B*T+1 contiguous
// tokens from the host reader, zero_grad(set_to_none), forward under bf16
// autocast on CUDA (float32 master weights; float32 on the CPU), the mean
// cross-entropy over the real vocabulary, backward, global-norm clip 1.0,
// the learning rate of the step (linear warm-up over --warmup-steps, then
// constant), AdamW (betas 0.9/0.95, eps 1e-8, weight decay on 2-D
// parameters only), then the loss and the gradient norm read on the host
// (train_gpt2.py's `loss.item()` and its printed norm). Count unit: tokens,
// B*T per step. Beside the rate: MFU (llm.c's 6N + 6LCT per token over the
// device's dense bf16 peak, training/device_peaks.hpp), peak memory, and
// the loss canary (training/loss_canary.hpp); the step and the loop are
// training/transformer_training.hpp's: a failed canary is a FAIL of
// kind bad_result.
#include "models/gpt2.hpp"

#include <torch/torch.h>

#include <stdexcept>

#include "training/session.hpp"
#include "training/token_loader.hpp"
#include "training/transformer_training.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class Gpt2Workload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "llm.c token shards (llmc_gpt2, llmc_tiny256)")->capture_default_str();
    app.add_option("--batch-size", batch_, "sequences per step (B)")->capture_default_str();
    app.add_option("--seq-len", cfg_.block_size, "tokens per sequence (T, the block size)")->capture_default_str();
    app.add_option("--n-layer", cfg_.n_layer, "transformer blocks")->capture_default_str();
    app.add_option("--n-embd", cfg_.n_embd, "channels")->capture_default_str();
    app.add_option("--n-head", cfg_.n_head, "attention heads")->capture_default_str();
    app.add_option("--vocab-size", cfg_.vocab_size, "real vocabulary (the loss reads these logits)")
        ->capture_default_str();
    app.add_option("--padded-vocab-size", cfg_.padded_vocab_size, "embedding rows (llm.c pads to 128)")
        ->capture_default_str();
    app.add_option("--init-std", cfg_.init_std, "initialisation std (llm.c 0.02)")->capture_default_str();
    add_training_options(app, t_);
  }

  void run(Session& s) override {
    if (std::string why = cfg_.problem(); !why.empty()) throw std::invalid_argument("gpt2: " + why);
    run_language_model<Gpt2>(s, t_,
                             {"gpt2",
                              dataset_,
                              cfg_.vocab_size,
                              batch_,
                              cfg_.block_size,
                              {{"n_layer", cfg_.n_layer},
                               {"n_embd", cfg_.n_embd},
                               {"n_head", cfg_.n_head},
                               {"seq_len", cfg_.block_size},
                               {"vocab_size", cfg_.vocab_size},
                               {"padded_vocab_size", cfg_.padded_vocab_size}},
                              "llm.c 6N + 6LCT per token (N = all parameters), tokens/s of the steps after the "
                              "warm-up, over the dense bf16 peak"},
                             cfg_, gpt2_flops_per_token);
  }

 private:
  std::string dataset_ = "llmc_gpt2";
  int64_t batch_ = 64;
  Gpt2Config cfg_ = Gpt2Config::d12();
  // Calibrated on the tiny config (docs/fidelity.md, gpt2): 0.75 x ln(V) after 200 steps.
  TrainingOptions t_{AdamWHyper{}, 0.75, 200};
};

}  // namespace

std::unique_ptr<Workload> make_gpt2() { return std::make_unique<Gpt2Workload>(); }

}  // namespace milabench
