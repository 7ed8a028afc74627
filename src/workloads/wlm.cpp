// wlm / wlmfp16: PyTorch's word_language_model example on WikiText-2, as the
// original milabench ran it (milarun.models.wlm:main and :main_fp16).
// Training as the example's train(): batchify the train split into --batch-size
// columns, walk it in --bptt chunks, hidden state carried over and detached
// between chunks (reset each epoch), cross-entropy, gradients clipped to
// --clip (torch's clip_grad_norm_, which reads the norm back), plain SGD step
// p -= lr * grad, the loss read back every step (the original's loss.item()).
// Between epochs, outside the timed blocks as the original: evaluation on the
// valid split (batches of 10) and lr /= 4 when it did not improve.
// Count unit: sequences, i.e. --batch-size per step, the short last chunk of
// an epoch included (the original's chrono(count=batch_size); see
// docs/workloads.md).
// Half precision (wlmfp16): on CUDA, fp16 autocast with dynamic loss scaling
// (as torch.cuda.amp's GradScaler: init 2^16, x2 every 2000 clean steps,
// /2 and skip on inf/NaN); on CPU, bfloat16 autocast (no scaling needed).
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

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
    if (cuda_)
      at::autocast::set_enabled(prev_);
    else
      at::autocast::set_cpu_enabled(prev_);
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
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf,
                                                   scale_.to(torch::kDouble).reciprocal().to(torch::kFloat));
    return found_inf;
  }
  void update(const torch::Tensor& found_inf) { at::_amp_update_scale_(scale_, growth_, found_inf, 2.0, 0.5, 2000); }

 private:
  torch::Tensor scale_, growth_;
};

// torch.nn.utils.clip_grad_norm_ (2-norm) without reading the norm back
// (the fp16 path's; fp32 uses torch's, which reads it as the original's did).
void clip_grad_norm_on_device(const std::vector<torch::Tensor>& params, double max_norm) {
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
  explicit Wlm(bool half) : half_(half) {}

  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "dataset (only wiki2)")->capture_default_str();
    app.add_option("--model-name,--model", o_.rnn_type, "LSTM, GRU, RNN_TANH or RNN_RELU")->capture_default_str();
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
    auto train = batchify(corpus.train, batch_, s.device());

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

    const auto valid = batchify(corpus.valid, kEvalBatch, s.device());
    double best_val_loss = 0;
    for (int64_t epoch = 0; epoch < epochs_; ++epoch) {
      model->train();
      auto hidden = model->init_hidden(batch_, torch::TensorOptions().device(s.device()));
      for (int64_t i = 0; i + 1 < nbatch; i += bptt_) {
        const int64_t len = std::min(bptt_, nbatch - 1 - i);
        auto data = train.slice(0, i, i + len);
        auto target = train.slice(0, i + 1, i + 1 + len).reshape(-1);
        s.begin();
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
        if (scaler)
          clip_grad_norm_on_device(params, clip_);
        else
          torch::nn::utils::clip_grad_norm_(params, clip_);
        if (!found_inf.defined() || found_inf.item<float>() == 0) {
          torch::NoGradGuard ng;
          for (auto& p : params)
            if (p.grad().defined()) p.add_(p.grad(), -lr_);
        }
        if (scaler) scaler->update(found_inf);
        loss.item<double>();  // it.log(loss=loss.item()); total_loss += loss.item(): read every step
        if (!s.step(batch_, loss)) return;
      }
      // Untimed, as the original's evaluate(val_data) between epochs.
      const double val_loss = evaluate(model, valid);
      s.set_metric("val_loss", val_loss);
      if (epoch == 0 || val_loss < best_val_loss)
        best_val_loss = val_loss;
      else
        lr_ /= 4.0;
    }
  }

 private:
  static constexpr int64_t kEvalBatch = 10;  // the original's eval_batch_size

  // batchify: [n / bsz, bsz] on `device`, column j = the j-th slice of the text.
  static torch::Tensor batchify(std::vector<int32_t>& tokens, int64_t bsz, torch::Device device) {
    const int64_t nbatch = int64_t(tokens.size()) / bsz;
    return torch::from_blob(tokens.data(), {nbatch * bsz}, torch::kInt)
        .to(torch::kLong)
        .view({bsz, nbatch})
        .t()
        .contiguous()
        .to(device);
  }

  // The original's evaluate(): mean loss per token over `data` (eval mode, no
  // grad, one loss read per chunk).
  double evaluate(RNNModel& model, const torch::Tensor& data) {
    torch::NoGradGuard ng;
    model->eval();
    auto hidden = model->init_hidden(kEvalBatch, torch::TensorOptions().device(data.device()));
    double total = 0;
    const int64_t n = data.size(0);
    for (int64_t i = 0; i + 1 < n; i += bptt_) {
      const int64_t len = std::min(bptt_, n - 1 - i);
      auto [output, next] = model->forward(data.slice(0, i, i + len), hidden);
      hidden = std::move(next);
      auto target = data.slice(0, i + 1, i + 1 + len).reshape(-1);
      total += double(len) *
               torch::cross_entropy_loss(output.view({-1, o_.ntoken}).to(torch::kFloat), target).item<double>();
    }
    model->train();
    return n > 1 ? total / double(n - 1) : 0.0;
  }

  bool half_;
  RNNModelOptions o_;
  std::string dataset_ = "milarun.datasets:wiki2";
  double lr_ = 20, clip_ = 0.25;
  int64_t batch_ = 64, bptt_ = 35, epochs_ = 1000000;
};

}  // namespace

std::unique_ptr<Workload> make_wlm() { return std::make_unique<Wlm>(false); }
std::unique_ptr<Workload> make_wlm_fp16() { return std::make_unique<Wlm>(true); }

}  // namespace milabench
