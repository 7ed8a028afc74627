#include "training/transformer_training.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "data/dataset.hpp"
#include "data/manifest.hpp"
#include "models/attention.hpp"
#include "training/device_peaks.hpp"
#include "training/mixed_precision.hpp"
#include "training/session.hpp"

namespace milabench {

namespace {
std::vector<torch::Tensor> params_where(torch::nn::Module& m, bool two_d) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m.parameters())
    if ((p.dim() >= 2) == two_d) out.push_back(p);
  return out;
}
}  // namespace

std::vector<torch::Tensor> decay_params(torch::nn::Module& m) { return params_where(m, true); }
std::vector<torch::Tensor> no_decay_params(torch::nn::Module& m) { return params_where(m, false); }

void record_transformer_setup(Session& s, bool cuda, const nlohmann::json& config) {
  s.set_metric("precision", cuda ? "bfloat16 autocast, float32 master weights" : "float32");
  s.set_metric("attention", attention_kind());
  s.set_metric("optimizer", adamw_kernel_name(default_adamw_kernel(cuda ? torch::Device(torch::kCUDA) : torch::kCPU)));
  s.set_metric("config", config);
}

AdamWTrainer::AdamWTrainer(torch::nn::Module& model, const AdamWHyper& h, bool bf16_autocast, DataParallelRun* ranks)
    : h_(h), bf16_(bf16_autocast), params_(model.parameters()), ranks_(ranks) {
  auto options = [&](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(h_.lr).betas({h_.beta1, h_.beta2}).eps(h_.eps).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay_params(model), options(h_.weight_decay));
  groups.emplace_back(no_decay_params(model), options(0.0));
  opt_ = std::make_unique<torch::optim::AdamW>(std::move(groups), torch::optim::AdamWOptions(h_.lr));
  const torch::Device device = params_.empty() ? torch::Device(torch::kCPU) : params_.front().device();
  update_ = std::make_unique<AdamWStep>(*opt_, default_adamw_kernel(device), device);
}

double AdamWTrainer::lr_at(int64_t step) const {
  if (step < h_.warmup_steps) return h_.lr * double(step + 1) / double(h_.warmup_steps);
  return h_.lr;
}

StepResult AdamWTrainer::step(const LossFn& loss_fn, int64_t step) {
  if (ranks_)
    ranks_->before_backward();
  else
    for (auto& p : params_) p.mutable_grad() = torch::Tensor();  // zero_grad(set_to_none=True)
  torch::Tensor loss;
  {
    AutocastScope autocast(torch::kCUDA, torch::kBFloat16, bf16_);
    loss = loss_fn();
  }
  loss.backward();
  if (ranks_ && ranks_->after_backward()) return std::nullopt;
  auto norm = clip_grad_norm(params_, h_.grad_clip);
  const double lr = lr_at(step);
  for (auto& g : opt_->param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
  update_->step();
  const double lossf = loss.item<double>();
  norm_ = norm.item<double>();
  return std::make_pair(loss, lossf);
}

int64_t run_measured_steps(Session& s, const MeasuredSteps& m, const std::function<StepResult(int64_t)>& step_fn) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point t0;
  int64_t step = 0, timed_steps = 0;
  double last_loss = 0;
  if (m.warmup_steps <= 0) t0 = Clock::now();
  while (true) {
    s.begin();
    StepResult r = step_fn(step);
    if (!r) break;  // every rank leaves (DataParallelRun): not counted
    const auto& [loss, lossf] = *r;
    if (step == 0) m.canary.check_first(lossf);
    last_loss = lossf;
    ++step;
    // MFU over the steps after the warm-up (each ends with the loss read, a sync).
    if (step == m.warmup_steps) t0 = Clock::now();
    if (step > m.warmup_steps) ++timed_steps;
    const bool more = s.step(m.units_per_step, loss);
    if (m.ranks ? !m.ranks->go_on(more) : !more) break;
  }
  m.canary.check_last(last_loss, step);
  s.set_metric("steps", step);
  s.set_metric("last_loss", last_loss);
  const double secs = timed_steps > 0 ? std::chrono::duration<double>(Clock::now() - t0).count() : 0;
  const double rate = secs > 0 ? double(timed_steps * m.units_per_step) / secs : 0;
  s.set_metric("mfu", mfu_metric(s.device(), m.flops_per_unit, rate, m.mfu_formula));
  s.set_metric("peak_memory", peak_memory_metric(s.device()));
  if (m.ranks) m.ranks->finish(/*record_alone=*/false);
  return step;
}

MeasuredSteps TrainingOptions::measured(int64_t classes, int64_t units_per_step) const {
  MeasuredSteps m;
  m.units_per_step = units_per_step;
  m.warmup_steps = h.warmup_steps;
  m.canary.expected_first = std::log(double(classes));
  m.canary.last_below = canary_fraction * m.canary.expected_first;
  m.canary.min_steps = canary_min_steps;
  return m;
}

void add_training_options(CLI::App& app, TrainingOptions& t) {
  app.add_option("--lr", t.h.lr, "AdamW learning rate after the warm-up")->capture_default_str();
  app.add_option("--warmup-steps", t.h.warmup_steps, "linear learning-rate warm-up steps")->capture_default_str();
  app.add_option("--weight-decay", t.h.weight_decay, "AdamW weight decay of 2-D parameters")->capture_default_str();
  app.add_option("--grad-clip", t.h.grad_clip, "global gradient-norm clip")->capture_default_str();
  app.add_option("--canary-last-fraction", t.canary_fraction,
                 "loss canary: the last loss must be below this x ln(V) (0: off)")
      ->capture_default_str();
  app.add_option("--canary-min-steps", t.canary_min_steps, "loss canary: steps before the last loss is checked")
      ->capture_default_str();
  t.ranks.add_options(app);
}

TokenLoader open_token_loader(Session& s, const std::string& workload, const std::string& dataset, int64_t vocab,
                              int64_t batch, int64_t seq, const DataParallelRun& ranks) {
  const DatasetInfo* d = find_dataset(dataset);
  if (!d) throw std::invalid_argument(workload + ": --dataset " + dataset + " is not a dataset of this build");
  TokenLoader loader(s.dataroot() + "/" + d->source->dir, vocab, batch, seq, ranks.device(),
                     dataset_command(d->name, s.dataroot()), ranks.where().rank, ranks.where().world_size);
  auto prov = dataset_provenance(s.dataroot(), d->name);
  prov["train_shards"] = loader.shards();
  s.set_dataset(prov);
  return loader;
}

}  // namespace milabench
