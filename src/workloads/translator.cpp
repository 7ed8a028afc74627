// translator: the original milabench rnn_translator (GNMT v2, MLPerf v0.5
// reference) on WMT16 en->de. Counts sentences (the batch size per step, last
// partial batch dropped, as the original). WMT16 must already be under DATAROOT
// (the reader's error names the file and the command that makes it).
//
// Flags are the original's, with its defaults; those that only concern
// evaluation, checkpoints or multi-process training (--target-bleu, --beam-size,
// --save-freq, --rank ...) are accepted and have no effect here, as in the
// original's timed loop, which only trains.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "data/length_bucketing.hpp"
#include "data/wmt16.hpp"
#include "models/gnmt.hpp"
#include "training/init_torch_defaults.hpp"
#include "training/mixed_precision.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// "{'hidden_size': 1024, 'share_embedding': True}" (a Python dict literal, as
// the original's --model-config / --optimization-config) -> JSON.
nlohmann::json python_dict(const std::string& flag, std::string text) {
  for (char& c : text)
    if (c == '\'') c = '"';
  static const std::pair<std::string, std::string> kWords[] = {{"True", "true"}, {"False", "false"}, {"None", "null"}};
  for (const auto& [from, to] : kWords)
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
      text.replace(p, from.size(), to);
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw std::invalid_argument(flag + ": expected a dict such as \"{'lr': 5e-4}\", got " + text);
  return j;
}

struct Batch {
  torch::Tensor src, src_lengths, tgt;  // [Ts, B], [B] (CPU, descending), [Tt, B]
  int64_t tgt_tokens = 0;               // predicted tokens (tgt lengths - 1)
};

// The original's collate: pairs sorted by source length, descending; PAD fill.
Batch collate(const ParallelCorpus& c, std::vector<int64_t> idx) {
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return c.src.length(a) > c.src.length(b); });
  const int64_t B = int64_t(idx.size());
  int32_t ts = 0, tt = 0;
  for (int64_t i : idx) ts = std::max(ts, c.src.length(i)), tt = std::max(tt, c.tgt.length(i));
  Batch b;
  b.src = torch::full({ts, B}, kPad, torch::kLong);
  b.tgt = torch::full({tt, B}, kPad, torch::kLong);
  b.src_lengths = torch::empty({B}, torch::kLong);
  auto S = b.src.accessor<int64_t, 2>(), T = b.tgt.accessor<int64_t, 2>();
  auto L = b.src_lengths.accessor<int64_t, 1>();
  for (int64_t j = 0; j < B; ++j) {
    const int64_t i = idx[size_t(j)];
    for (int32_t t = 0; t < c.src.length(i); ++t) S[t][j] = c.src.line(i)[t];
    for (int32_t t = 0; t < c.tgt.length(i); ++t) T[t][j] = c.tgt.line(i)[t];
    L[j] = c.src.length(i);
    b.tgt_tokens += c.tgt.length(i) - 1;
  }
  return b;
}

class TranslatorWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    set_init_torch_defaults(app, 100, 8);  // rnn_translator.py's own --seed 100, --workers 8
    app.add_option("--dataset", dataset_, "dataset (wmt16)")->capture_default_str();
    app.add_option("--batch-size", batch_, "sentence pairs per step")->capture_default_str();
    app.add_option("--max-size", max_size_, "read at most this many pairs (0 = all)")->capture_default_str();
    app.add_option("--model-config", model_config_, "Python dict overriding the model flags below");
    app.add_option("--hidden-size", model_.hidden_size, "LSTM and embedding width")->capture_default_str();
    app.add_option("--num-layers", model_.num_layers, "LSTM layers per side (>= 2)")->capture_default_str();
    app.add_option("--dropout", model_.dropout, "dropout before LSTM layers")->capture_default_str();
    app.add_flag("--share-embedding,!--no-share-embedding", model_.share_embedding, "one embedding for both sides");
    app.add_option("--smoothing", smoothing_, "label smoothing (0 = cross-entropy)")->capture_default_str();
    app.add_option(
           "--math", math_,
           "fp32 or fp16 (fp16: float16 model, float32 master weights, loss scaling on CUDA; bfloat16 autocast on CPU)")
        ->check(CLI::IsMember({"fp32", "fp16"}))
        ->capture_default_str();
    app.add_option("--optimization-config", opt_config_, "Python dict: optimizer (Adam|SGD) and lr")
        ->capture_default_str();
    app.add_option("--lr", lr_, "learning rate (overrides --optimization-config's)");
    app.add_option("--grad-clip", grad_clip_, "max gradient norm")->capture_default_str();
    app.add_option("--max-length-train", max_len_, "max ids per sentence, BOS/EOS included")->capture_default_str();
    app.add_option("--min-length-train", min_len_, "min ids per sentence")->capture_default_str();
    app.add_flag("--bucketing,!--no-bucketing", bucketing_, "length-bucketed batches");
    for (const char* f :
         {"--target-bleu", "--eval-batch-size", "--max-length-val", "--min-length-val", "--beam-size",
          "--len-norm-factor", "--cov-penalty-factor", "--len-norm-const", "--results-dir", "--save", "--print-freq",
          "--start-epoch", "--resume", "--save-freq", "--keep-checkpoints", "--rank", "--world-size", "--dist-url"})
      app.add_option(f, ignored_, "accepted for compatibility; no effect (the timed loop only trains)");
    for (const char* f : {"--disable-eval", "--save-all", "--cudnn,!--no-cudnn"})
      app.add_flag(f, ignored_flag_, "accepted for compatibility; no effect");
  }

  void run(Session& s) override {
    if (dataset_.find("wmt16") == std::string::npos)
      throw std::invalid_argument("translator: --dataset must name wmt16, got " + dataset_);
    if (batch_ < 1) throw std::invalid_argument("--batch-size must be >= 1");
    apply_configs();
    const torch::Device dev = s.device();
    Wmt16 data = load_train(s);
    const ParallelCorpus& train = data.train;

    model_.vocab_size = data.vocab.size();
    const bool half = math_ == "fp16";
    model_.pad_classifier = half;
    GnmtModel model(model_);
    model->to(dev);
    // --math fp16 on CUDA: the original's model.half() + Fp16Optimizer (float32
    // masters, GNMT's dynamic loss scale, masters clipped); on CPU: bfloat16
    // autocast over the forward pass and the loss, float32 parameters.
    const bool fp16 = half && dev.is_cuda(), bf16 = half && !dev.is_cuda();
    std::optional<Fp16MasterWeights> masters;
    if (fp16) {
      model->to(torch::kFloat16);
      masters.emplace(model->parameters(), LossScalePolicy::gnmt_dynamic());
    }
    s.set_model(*model);
    s.set_metric("precision", fp16 ? "float16" : bf16 ? "bfloat16" : "float32");
    auto params = fp16 ? masters->master_params() : model->parameters();
    const auto opt = make_optimizer(params);
    const Trainer tr{model, masters, params, *opt, dev, fp16, bf16};

    const uint64_t seed = uint64_t(torch::randint(1LL << 62, {1}, torch::kLong).item<int64_t>());
    BucketingOptions bo;
    bo.batch_size = batch_;
    bo.bucket = bucketing_;
    model->train();
    for (int64_t epoch = 0;; ++epoch) {
      preallocate(s, tr);
      for (auto& idx : bucketing_batches(train.lengths, bo, seed, epoch)) {
        Batch b = collate(train, std::move(idx));  // the original's DataLoader workers
        s.begin();                                 // its chrono block opens after the loader yields the batch
        auto loss = train_step(s, tr, b, true);    // loss per target token, a host scalar
        if (!s.step(batch_, loss)) return;         // chrono(count=data_loader.batch_size)
      }
    }
  }

 private:
  // What a training step works on; all references into run()'s locals.
  struct Trainer {
    GnmtModel& model;
    std::optional<Fp16MasterWeights>& masters;  // engaged iff fp16
    const std::vector<torch::Tensor>& params;   // what opt steps: the float32 masters under fp16
    torch::optim::Optimizer& opt;
    torch::Device dev;  // the session's device
    bool fp16, bf16;    // float16 model + masters (CUDA); bfloat16 autocast (CPU)
  };

  // Reads the training pairs under DATAROOT (at most --max-size, lengths
  // --min/max-length-train) and records their provenance as the dataset.
  Wmt16 load_train(Session& s) const {
    ParallelOptions po;
    po.min_length = min_len_;
    po.max_length = max_len_;
    po.max_size = max_size_;
    po.threads = unsigned(std::max<int64_t>(1, s.workers() > 0 ? s.workers() : workers_));
    Wmt16 data = read_wmt16_train(s.dataroot(), po);
    const ParallelCorpus& train = data.train;
    if (train.src.size() < batch_)
      throw std::runtime_error("wmt16: only " + std::to_string(train.src.size()) + " training pairs of length " +
                               std::to_string(min_len_) + ".." + std::to_string(max_len_) + " under " +
                               wmt16_dir(s.dataroot()) + ", fewer than one batch of " + std::to_string(batch_));
    auto prov = wmt16_provenance(s.dataroot());
    prov["pairs_read"] = train.pairs_read;
    prov["pairs_used"] = train.src.size();
    prov["vocab_size"] = data.vocab.size();
    s.set_dataset(prov);
    return data;
  }

  // The --optimization-config optimizer (Adam or SGD) over params, at lr_.
  std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::vector<torch::Tensor>& params) const {
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (optimizer_ == "Adam")
      opt = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(lr_));
    else if (optimizer_ == "SGD")
      opt = std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(lr_));
    else
      throw std::invalid_argument("--optimization-config: optimizer must be Adam or SGD, got " + optimizer_);
    return opt;
  }

  // The original's preallocate() at the start of each epoch: one untimed step
  // on a max-length batch of --batch-size pairs, without the update.
  void preallocate(Session& s, const Trainer& tr) {
    Batch warm;
    warm.src = torch::full({max_len_, batch_}, 4, torch::kLong);
    warm.tgt = warm.src.clone();
    warm.src_lengths = torch::full({batch_}, int64_t(max_len_), torch::kLong);
    warm.tgt_tokens = (max_len_ - 1) * batch_;
    train_step(s, tr, warm, false);
  }

  // One step as the original's iterate(): forward, loss (sum over tokens)
  // read back at once (loss_per_batch = loss.item()), / B, backward, clip,
  // update. Returns the loss per target token, a host scalar.
  torch::Tensor train_step(Session& s, const Trainer& tr, const Batch& b, bool update) {
    auto src = b.src.to(tr.dev), tgt = b.tgt.to(tr.dev);
    const int64_t B = src.size(1);
    torch::Tensor loss;
    {
      AutocastScope autocast(torch::kCPU, torch::kBFloat16, tr.bf16);
      auto logits = tr.model->forward(src, b.src_lengths, tgt.slice(0, 0, -1));
      auto labels = tgt.slice(0, 1).reshape({-1});
      loss = label_smoothed_loss(logits.reshape({-1, logits.size(2)}), labels, kPad, smoothing_);
    }
    const double loss_per_batch = loss.item<double>();
    if (tr.fp16) {
      tr.masters->backward(loss / double(B));
      // An overflow (one read) skips the update and halves the scale.
      if (update && tr.masters->unscale()) {
        clip_grad_norm(tr.params, grad_clip_);
        tr.opt.step();
        tr.masters->copy_to_model();
      }
      s.set_metric("loss_scale", tr.masters->loss_scale().scale());
      s.set_metric("skipped_steps", tr.masters->loss_scale().skipped_steps());
    } else {
      (loss / double(B)).backward();
      // Fp32Optimizer clips before `if update`; torch 1.5's clip_grad_norm_
      // reads the norm back once.
      clip_grad_norm(tr.params, grad_clip_).item<double>();
      if (update) tr.opt.step();
    }
    tr.opt.zero_grad();
    return torch::scalar_tensor(loss_per_batch / double(std::max<int64_t>(1, b.tgt_tokens)), torch::kDouble);
  }

  void apply_configs() {
    if (!model_config_.empty()) {
      auto j = python_dict("--model-config", model_config_);
      if (j.contains("hidden_size")) model_.hidden_size = j["hidden_size"].get<int64_t>();
      if (j.contains("num_layers")) model_.num_layers = j["num_layers"].get<int64_t>();
      if (j.contains("dropout")) model_.dropout = j["dropout"].get<double>();
      if (j.contains("share_embedding")) model_.share_embedding = j["share_embedding"].get<bool>();
    }
    auto o = python_dict("--optimization-config", opt_config_);
    optimizer_ = o.value("optimizer", std::string("Adam"));
    if (lr_ <= 0) lr_ = o.value("lr", 5e-4);
    if (max_len_ < 2 || min_len_ > max_len_)
      throw std::invalid_argument("--max-length-train must be >= 2 and >= --min-length-train");
  }

  std::string dataset_ = "milarun.datasets:wmt16";
  int64_t batch_ = 64;
  int64_t workers_ = 8;
  int64_t max_size_ = 0;
  std::string model_config_;
  GnmtOptions model_;
  double smoothing_ = 0.1;
  std::string math_ = "fp32";
  std::string opt_config_ = "{'optimizer': 'Adam', 'lr': 5e-4}";
  std::string optimizer_ = "Adam";
  double lr_ = 0;  // 0: from --optimization-config
  double grad_clip_ = 5.0;
  int32_t max_len_ = 50, min_len_ = 0;
  bool bucketing_ = true;
  std::string ignored_;
  bool ignored_flag_ = false;
};

}  // namespace

std::unique_ptr<Workload> make_translator() { return std::make_unique<TranslatorWorkload>(); }

}  // namespace milabench
