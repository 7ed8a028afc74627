// wlm / wlmfp16: PyTorch's word_language_model example on WikiText-2, as the
// original milabench ran it (milarun.models.wlm:main and :main_fp16).
// Training as the example's train(): batchify the train split into --batch-size
// columns, walk it in --bptt chunks, hidden state carried over and detached
// between chunks (reset each epoch), cross-entropy, gradients clipped to
// --clip, plain SGD step p -= lr * grad. No evaluation pass (the profile's
// --max-count ends the run inside the first epoch).
// Count unit: sequences, i.e. --batch-size per step (the original's count; see
// docs/workloads.md).
// Half precision (wlmfp16): on CUDA, fp16 autocast with dynamic loss scaling
// (as torch.cuda.amp's GradScaler: init 2^16, x2 every 2000 clean steps,
// /2 and skip on inf/NaN); on CPU, bfloat16 autocast (no scaling needed).
#include <torch/torch.h>

#include <ATen/autocast_mode.h>

#include <stdexcept>

#include "data/wikitext2.hpp"
#include "models/rnn_model.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// Autocast on for one forward pass (the Python context manager's semantics:
// the weight-cast cache is cleared when the outermost scope closes).
class AutocastScope {
 public:
  AutocastScope(bool on, bool cuda) : on_(on), cuda_(cuda) {
    if (!on_) return;
    if (cuda_) {
      prev_ = at::autocast::is_enabled();
      at::autocast::set_autocast_gpu_dtype(at::kHalf);
      at::autocast::set_enabled(true);
    } else {
      prev_ = at::autocast::is_cpu_enabled();
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!on_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    if (cuda_) at::autocast::set_enabled(prev_);
    else at::autocast::set_cpu_enabled(prev_);
  }

 private:
  bool on_, cuda_, prev_ = false;
};

// Dynamic loss scaling on the device (GradScaler's kernels and defaults).
class LossScaler {
 public:
  explicit LossScaler(const torch::Device& d)
      : scale_(torch::full({1}, 65536.0, torch::TensorOptions().device(d).dtype(torch::kFloat))),
        growth_(torch::zeros({1}, torch::TensorOptions().device(d).dtype(torch::kInt))) {}
  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Unscales the gradients in place; returns a device flag, nonzero on inf/NaN.
  torch::Tensor unscale(const std::vector<torch::Tensor>& grads) {
    auto found_inf = torch::zeros({1}, scale_.options());
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, scale_.to(torch::kDouble).reciprocal().to(torch::kFloat));
    return found_inf;
  }
  void update(const torch::Tensor& found_inf) { at::_amp_update_scale_(scale_, growth_, found_inf, 2.0, 0.5, 2000); }

 private:
  torch::Tensor scale_, growth_;
};

// torch.nn.utils.clip_grad_norm_ (2-norm) without reading the norm back, so
// no device sync per step (libtorch's version returns a double).
void clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  std::vector<torch::Tensor> norms;
  for (const auto& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2));
  if (norms.empty()) return;
  auto coef = (max_norm / (torch::stack(norms).norm(2) + 1e-6)).clamp_max(1.0);
  for (const auto& p : params)
    if (p.grad().defined()) p.grad().detach().mul_(coef);
}

class Wlm : public Workload {
 public:
  explicit Wlm(bool half) : half_(half), batch_(half ? 128 : 64) {}

  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "dataset (only wiki2)")->capture_default_str();
    app.add_option("--model", o_.rnn_type, "LSTM, GRU, RNN_TANH or RNN_RELU")->capture_default_str();
    app.add_option("--emsize", o_.ninp, "word embedding size")->capture_default_str();
    app.add_option("--nhid", o_.nhid, "hidden units per layer")->capture_default_str();
    app.add_option("--nlayers", o_.nlayers, "recurrent layers")->capture_default_str();
    app.add_option("--dropout", o_.dropout, "dropout on embeddings, between layers and on outputs")
        ->capture_default_str();
    app.add_flag("--tied", o_.tied, "tie the word embedding and softmax weights");
    app.add_option("--lr", lr_, "SGD learning rate")->capture_default_str();
    app.add_option("--clip", clip_, "gradient norm clipping")->capture_default_str();
    app.add_option("--batch-size", batch_, "sequences (columns) per step")->capture_default_str();
    app.add_option("--bptt", bptt_, "sequence length")->capture_default_str();
    app.add_option("--epochs", epochs_, "upper bound on epochs (--max-count usually ends the run first)")
        ->capture_default_str();
  }

  void run(Session& s) override {
    if (batch_ < 1 || bptt_ < 1) throw std::invalid_argument("wlm: --batch-size and --bptt must be >= 1");
    if (dataset_.find("wiki2") == std::string::npos)
      throw std::invalid_argument("wlm: --dataset must name wiki2, got " + dataset_);
    const bool cuda = s.device().is_cuda();
    Wiki2Corpus corpus = read_wiki2(s.dataroot());
    s.set_dataset(wiki2_provenance(s.dataroot()));
    const int64_t nbatch = int64_t(corpus.train.size()) / batch_;
    if (nbatch < 2)
      throw std::runtime_error("wlm: the train split has " + std::to_string(corpus.train.size()) +
                               " tokens, fewer than 2 x --batch-size; generate more data");
    // batchify: [nbatch, bsz], column j = the j-th contiguous slice of the text.
    auto train = torch::from_blob(corpus.train.data(), {nbatch * batch_}, torch::kInt)
                     .to(torch::kLong)
                     .view({batch_, nbatch})
                     .t()
                     .contiguous()
                     .to(s.device());

    o_.ntoken = corpus.dictionary.size();
    RNNModel model(o_);
    model->to(s.device());
    s.set_model(*model);
    s.set_metric("vocabulary", o_.ntoken);
    s.set_metric("precision", !half_ ? "float32" : cuda ? "float16" : "bfloat16");
    auto params = model->parameters();
    std::unique_ptr<LossScaler> scaler;
    if (half_ && cuda) scaler = std::make_unique<LossScaler>(s.device());
    model->train();

    for (int64_t epoch = 0; epoch < epochs_; ++epoch) {
      auto hidden = model->init_hidden(batch_, torch::TensorOptions().device(s.device()));
      for (int64_t i = 0; i + 1 < nbatch; i += bptt_) {
        const int64_t len = std::min(bptt_, nbatch - 1 - i);
        auto data = train.slice(0, i, i + len);
        auto target = train.slice(0, i + 1, i + 1 + len).reshape(-1);
        for (auto& h : hidden) h = h.detach();
        model->zero_grad();
        torch::Tensor loss;
        {
          AutocastScope autocast(half_, cuda);
          auto [output, next] = model->forward(data, hidden);
          hidden = std::move(next);
          loss = torch::cross_entropy_loss(output.view({-1, o_.ntoken}).to(torch::kFloat), target);
        }
        torch::Tensor found_inf;
        if (scaler) {
          scaler->scale(loss).backward();
          std::vector<torch::Tensor> grads;
          for (auto& p : params)
            if (p.grad().defined()) grads.push_back(p.grad());
          found_inf = scaler->unscale(grads);
        } else {
          loss.backward();
        }
        clip_grad_norm(params, clip_);
        if (!found_inf.defined() || found_inf.item<float>() == 0) {
          torch::NoGradGuard ng;
          for (auto& p : params)
            if (p.grad().defined()) p.add_(p.grad(), -lr_);
        }
        if (scaler) scaler->update(found_inf);
        if (!s.step(batch_, loss)) return;
      }
    }
  }

 private:
  bool half_;
  RNNModelOptions o_;
  std::string dataset_ = "milarun.datasets:wiki2";
  double lr_ = 20, clip_ = 0.25;
  int64_t batch_, bptt_ = 35, epochs_ = 1000000;
};

}  // namespace

std::unique_ptr<Workload> make_wlm() { return std::make_unique<Wlm>(false); }
std::unique_ptr<Workload> make_wlm_fp16() { return std::make_unique<Wlm>(true); }

}  // namespace milabench
