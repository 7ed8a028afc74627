// The training machinery of the 2026 workloads (gpt2, vit; llama and dit to
// come), one owner for what llm.c's train_gpt2.py and its followers share:
//   - AdamWTrainer: one step = zero_grad(set_to_none), the caller's forward
//     and loss under bf16 autocast on CUDA (the parameters stay float32:
//     PyTorch AMP's master weights), backward, clip_grad_norm_(grad_clip),
//     the step's learning rate (linear warm-up, then constant), AdamW with
//     weight decay on 2-D parameters only (fused on CUDA where libtorch has
//     it: training/adamw_step.hpp), then the loss and the norm read on the
//     host (the loop's `loss.item()` and printed norm).
//   - run_measured_steps: the measured loop around it, with the loss canary,
//     MFU over the steps after the warm-up, and peak memory in the result.
//   - TrainingOptions and open_token_loader: the command-line options and
//     the data setup the language-model workloads share.
// Data-parallel: each workload trains through a DataParallelRun
// (training/data_parallel_run.hpp), the one rank code path it shares with
// scaling. In a world of one rank it trains plainly (no bucket copies, no
// group); with --devices N (a gpu-progression profile entry) or on Slurm,
// gradients are averaged over the ranks by bucketed all-reduce during
// backward, each rank reads its own data (token shards at its own offset,
// generated data from its own seed), and rank 0 writes the group's result.
#pragma once
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "training/adamw_step.hpp"
#include "training/data_parallel_run.hpp"
#include "training/loss_canary.hpp"
#include "training/session.hpp"
#include "training/token_loader.hpp"

namespace milabench {

class Session;

struct AdamWHyper {
  double lr = 6e-4;
  int64_t warmup_steps = 10;  // lr x (step+1) / warmup_steps before, lr after (train_gpt2.py get_lr)
  double weight_decay = 0.1;  // on 2-D parameters (weights, embeddings); 0 on the rest
  double grad_clip = 1.0;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
};

// llm.c's configure_optimizers split: parameters with dim >= 2 decay, the
// rest (biases, norms' gains) do not. Both keep the module's order.
std::vector<torch::Tensor> decay_params(torch::nn::Module& m);
std::vector<torch::Tensor> no_decay_params(torch::nn::Module& m);

// One step's loss tensor and its value read on the host; empty when the
// ranks' stop vote says every rank leaves now (the step is not counted and
// its optimizer step not taken).
using StepResult = std::optional<std::pair<torch::Tensor, double>>;

class AdamWTrainer {
 public:
  // The loss of one batch, computed by the caller (called inside the
  // autocast scope); returns a float scalar tensor.
  using LossFn = std::function<torch::Tensor()>;
  // `ranks` (may be null: one process, no group) must already hold the
  // model's parameters (DataParallelRun::attach) and outlive the trainer.
  AdamWTrainer(torch::nn::Module& model, const AdamWHyper& h, bool bf16_autocast, DataParallelRun* ranks = nullptr);
  // The learning rate of step `step` (0-based).
  double lr_at(int64_t step) const;
  // One step (gradients averaged over the ranks before the clip).
  StepResult step(const LossFn& loss_fn, int64_t step);
  double last_norm() const { return norm_; }
  torch::optim::AdamW& optimizer() { return *opt_; }

 private:
  AdamWHyper h_;
  bool bf16_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::AdamW> opt_;
  std::unique_ptr<AdamWStep> update_;  // over opt_'s groups and state
  DataParallelRun* ranks_ = nullptr;
  double norm_ = 0;
};

// What run_measured_steps needs to know of a workload.
struct MeasuredSteps {
  int64_t units_per_step = 0;        // the count per step (B x T tokens, or B images)
  double flops_per_unit = 0;         // model FLOPs per counted unit (the MFU numerator)
  std::string mfu_formula;           // how flops_per_unit was derived (recorded)
  int64_t warmup_steps = 10;         // MFU is timed over the steps after these
  LossCanary canary;                 // checked on step 0's and the last loss
  DataParallelRun* ranks = nullptr;  // the loop goes on until the ranks agree; finished after
};

// Runs `step_fn(step)` inside the session's timed blocks until the session
// stops (with ranks: until their stop vote), checking the canary
// (LossCanaryFailed: a FAIL of kind bad_result). Records the metrics
// "steps", "last_loss", "mfu" and "peak_memory", then finishes the ranks
// (DataParallelRun::finish). Returns the step count.
int64_t run_measured_steps(Session& s, const MeasuredSteps& m, const std::function<StepResult(int64_t)>& step_fn);

// The options the language-model workloads share: AdamW's and the loss
// canary's (the last loss below canary_fraction x ln(V) after at least
// canary_min_steps steps; a fraction of 0 turns that check off).
struct TrainingOptions {
  AdamWHyper h;
  double canary_fraction = 0.75;
  int64_t canary_min_steps = 200;
  RankFlags ranks;
  // A MeasuredSteps for `classes` real classes (V) and `units_per_step`
  // counted units a step: warm-up and canary set from these options, the
  // FLOPs and their formula left to the caller.
  MeasuredSteps measured(int64_t classes, int64_t units_per_step) const;
};
// --lr, --warmup-steps, --weight-decay, --grad-clip, --canary-last-fraction,
// --canary-min-steps and the rank flags (RankFlags), bound to `t` (which
// must outlive the parse).
void add_training_options(CLI::App& app, TrainingOptions& t);

// The train shards of token dataset `dataset` for a run of `workload`:
// records the dataset's provenance (with "train_shards") in the session and
// returns the reader of B = `batch` sequences of T = `seq` tokens, checked
// against `vocab`, for rank `where.rank` of `where.world_size`, on `device`. Throws std::invalid_argument ("WORKLOAD:
// --dataset ...") for a name this build does not know; DataError (naming the command that makes it) when the data is
// absent.
TokenLoader open_token_loader(Session& s, const std::string& workload, const std::string& dataset, int64_t vocab,
                              int64_t batch, int64_t seq, const DataParallelRun& ranks);

// The language models' measured loop (gpt2, llama): each step trains `model`
// (a holder with forward(idx) -> logits and loss(logits, targets)) on the
// next B x T + 1 tokens of `loader`; records "data_wraps" after.
template <class Model>
void train_language_model(Session& s, Model& model, TokenLoader& loader, AdamWTrainer& trainer,
                          const MeasuredSteps& m) {
  run_measured_steps(s, m, [&](int64_t step) {
    auto [x, y] = loader.next();
    return trainer.step([&] { return model->loss(model->forward(x), y); }, step);
  });
  s.set_metric("data_wraps", loader.wraps());
}

// The metrics every 2026 workload records before its loop: "precision"
// (bfloat16 autocast with float32 master weights on CUDA, else float32),
// "attention" (models/attention.hpp's attention_kind()), "optimizer" (which
// AdamW kernel AdamWTrainer uses there: adamw_step.hpp) and "config" (its
// shape, as given).
void record_transformer_setup(Session& s, bool cuda, const nlohmann::json& config);

// What a language-model workload (gpt2, llama) gives run_language_model.
struct LanguageModelRun {
  std::string workload;     // "gpt2": its name in errors and the rank setup
  std::string dataset;      // --dataset
  int64_t vocab = 0;        // real vocabulary (V): the loader's token check, the canary's ln(V)
  int64_t batch = 0;        // B sequences a step
  int64_t seq = 0;          // T tokens a sequence
  nlohmann::json config;    // its shape for record_transformer_setup ("batch_size" is added)
  std::string mfu_formula;  // how flops_per_token counts (MeasuredSteps::mfu_formula)
};

// The whole run of a language model: checks B, sets up the ranks and the
// token loader, builds Model(cfg) on the rank's device, records the setup,
// then trains through train_language_model with AdamW, counting B x T tokens
// a step and flops_per_token(cfg, parameters) FLOPs a token. Throws
// std::invalid_argument ("WORKLOAD: --batch-size must be >= 1") for B < 1.
template <class Model, class Config>
void run_language_model(Session& s, const TrainingOptions& t, const LanguageModelRun& r, const Config& cfg,
                        double (*flops_per_token)(const Config&, int64_t)) {
  if (r.batch < 1) throw std::invalid_argument(r.workload + ": --batch-size must be >= 1");
  DataParallelRun ranks(s, t.ranks, r.workload);
  TokenLoader loader = open_token_loader(s, r.workload, r.dataset, r.vocab, r.batch, r.seq, ranks);
  const bool cuda = ranks.device().is_cuda();
  Model model(cfg);
  model->to(ranks.device());
  s.set_model(*model);
  nlohmann::json config = r.config;
  config["batch_size"] = r.batch;
  record_transformer_setup(s, cuda, config);
  MeasuredSteps m = t.measured(r.vocab, r.batch * r.seq);
  ranks.attach(model->parameters(), m.units_per_step);
  m.ranks = &ranks;
  AdamWTrainer trainer(*model, t.h, cuda, &ranks);
  m.flops_per_unit = flops_per_token(cfg, count_parameters(*model));
  m.mfu_formula = r.mfu_formula;
  train_language_model(s, model, loader, trainer, m);
}

}  // namespace milabench
