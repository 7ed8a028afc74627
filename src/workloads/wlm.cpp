// wlm / wlmfp16: PyTorch's word_language_model example on WikiText-2, as the
// original milabench ran it (milarun.models.wlm:main and :main_fp16).
// Training as the example's train(): batchify the train split into --batch-size
// columns, walk it in --bptt chunks, hidden state carried over and detached
// between chunks (reset each epoch), cross-entropy, gradients clipped to
// --clip (torch 1.5's clip_grad_norm_, which reads the clip coefficient back),
// plain SGD step p -= lr * grad, the loss read back every step (the original's
// loss.item()). Between epochs, outside the timed blocks as the original:
// evaluation on the valid split (batches of 10) and, for wlm, lr /= 4 when it
// did not improve. wlmfp16 keeps its first lr: main_fp16's `lr /= 4.0`
// changed a local the optimizer never read (docs/fidelity.md).
// Count unit: sequences, i.e. --batch-size per step, the short last chunk of
// an epoch included (the original's chrono(count=batch_size); see
// docs/workloads.md).
// Half precision (wlmfp16, the original's main_fp16): the vocabulary is
// padded to a multiple of 8 on every device. On CUDA the whole model is
// float16 and apex's FP16_Optimizer is reproduced: static loss scale 128,
// float32 master weights, master gradients clipped, SGD on the masters
// (training/mixed_precision.hpp). On CPU: bfloat16 autocast, no scaling.
#include <torch/torch.h>

#include <optional>
#include <stdexcept>

#include "data/wikitext2.hpp"
#include "models/rnn_model.hpp"
#include "training/mixed_precision.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// main_fp16's FP16_Optimizer(static_loss_scale=128, dynamic_loss_scale=False).
constexpr double kWlmFp16LossScale = 128.0;

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

    // main_fp16 loads the corpus with pad_to_multiple_of=8 (on any device).
    o_.ntoken = half_ ? (corpus.dictionary.size() + 7) / 8 * 8 : corpus.dictionary.size();
    RNNModel model(o_);
    model->to(s.device());
    const bool fp16 = half_ && cuda, bf16 = half_ && !cuda;
    if (fp16) model->to(torch::kFloat16);  // model.type(torch.cuda.HalfTensor)
    s.set_model(*model);
    s.set_metric("vocabulary", o_.ntoken);
    s.set_metric("precision", !half_ ? "float32" : fp16 ? "float16" : "bfloat16");
    std::optional<Fp16MasterWeights> masters;
    if (fp16) {
      masters.emplace(model->parameters(), LossScalePolicy::fixed(kWlmFp16LossScale));
      s.set_metric("loss_scale", kWlmFp16LossScale);
    }
    // The SGD step p -= lr * grad runs on the float32 masters when there are.
    const std::vector<torch::Tensor> params = fp16 ? masters->master_params() : model->parameters();
    const auto state = torch::TensorOptions().device(s.device()).dtype(fp16 ? torch::kFloat16 : torch::kFloat32);
    const Trainer tr{model, masters, params, state, fp16, bf16};
    const auto valid = batchify(corpus.valid, kEvalBatch, s.device());
    double best_val_loss = 0;
    int64_t not_improved = 0;
    for (int64_t epoch = 0; epoch < epochs_; ++epoch) {
      model->train();
      auto hidden = model->init_hidden(batch_, state);
      if (!train_epoch(s, tr, hidden, train, nbatch)) return;
      // Untimed, as the original's evaluate(val_data) between epochs.
      const double val_loss = evaluate(model, valid, state, bf16);
      s.set_metric("val_loss", val_loss);
      if (epoch == 0 || val_loss < best_val_loss) {
        best_val_loss = val_loss;
      } else {
        s.set_metric("epochs_not_improved", ++not_improved);
        // main.py:182,229 steps with the annealed local lr; main_fp16_optimizer.py:143,234,271
        // anneals a local after SGD(lr=lr) took its value: the steps keep the first lr.
        if (!half_) lr_ /= 4.0;
      }
      s.set_metric("lr", lr_);  // what the next step applies
    }
  }

 private:
  static constexpr int64_t kEvalBatch = 10;  // the original's eval_batch_size

  // What a training step works on; all references into run()'s locals.
  struct Trainer {
    RNNModel& model;
    std::optional<Fp16MasterWeights>& masters;  // engaged iff fp16
    const std::vector<torch::Tensor>& params;   // what SGD steps: the float32 masters under fp16
    torch::TensorOptions state;                 // device and dtype of the hidden state
    bool fp16, bf16;                            // float16 model + masters (CUDA); bfloat16 autocast (CPU)
  };

  // One epoch of the example's train(): one timed block per --bptt chunk of
  // `train` ([nbatch, batch_] token ids), each counting batch_ sequences;
  // `hidden` (the epoch's fresh state, owned by the caller) is carried across
  // the chunks. Returns false as soon as the session says stop.
  bool train_epoch(Session& s, const Trainer& tr, RNNModelImpl::Hidden& hidden, const torch::Tensor& train,
                   int64_t nbatch) {
    for (int64_t i = 0; i + 1 < nbatch; i += bptt_) {
      const int64_t len = std::min(bptt_, nbatch - 1 - i);
      auto data = train.slice(0, i, i + len);
      auto target = train.slice(0, i + 1, i + 1 + len).reshape(-1);
      s.begin();
      auto loss = train_step(tr, hidden, data, target);
      if (!s.step(batch_, loss)) return false;
    }
    return true;
  }

  // One step on a chunk: hidden is detached, then replaced by the state after
  // `data`. Two host reads: the clip coefficient and the loss. Returns the loss.
  torch::Tensor train_step(const Trainer& tr, RNNModelImpl::Hidden& hidden, const torch::Tensor& data,
                           const torch::Tensor& target) {
    for (auto& h : hidden) h = h.detach();
    tr.model->zero_grad();
    torch::Tensor loss;
    {
      AutocastScope autocast(torch::kCPU, torch::kBFloat16, tr.bf16);
      auto [output, next] = tr.model->forward(data, hidden);
      hidden = std::move(next);
      auto logits = output.view({-1, o_.ntoken});
      // float16 logits give a float16 loss, as the original's criterion.
      loss = torch::cross_entropy_loss(tr.bf16 ? logits.to(torch::kFloat) : logits, target);
    }
    if (tr.fp16) {
      tr.masters->backward(loss);
      tr.masters->unscale();  // static scale: always applied, nothing read back
    } else {
      loss.backward();
    }
    // torch 1.5's clip_grad_norm_ (and apex's clip_master_grads) read the
    // clip coefficient back once per step; so does this.
    clip_grad_norm(tr.params, clip_).item<double>();
    {
      torch::NoGradGuard ng;
      for (const auto& p : tr.params)
        if (p.grad().defined()) p.add_(p.grad(), -lr_);
    }
    if (tr.fp16) tr.masters->copy_to_model();
    loss.item<double>();  // it.log(loss=loss.item()); total_loss += loss.item(): read every step
    return loss;
  }

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
  double evaluate(RNNModel& model, const torch::Tensor& data, const torch::TensorOptions& state, bool bf16) {
    torch::NoGradGuard ng;
    model->eval();
    auto hidden = model->init_hidden(kEvalBatch, state);
    AutocastScope autocast(torch::kCPU, torch::kBFloat16, bf16);
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
