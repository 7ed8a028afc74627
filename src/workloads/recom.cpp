// recom: NeuMF on MovieLens-20M as the original milabench ran it
// (milarun.models.recommendation:main, the MLPerf NCF reference): implicit
// feedback, leave-one-out split, --negative-samples negatives per positive
// drawn by the loader (data/ncf_sampler.hpp), BCE with logits, Adam.
// Count unit: samples, negatives included: --batch-size per step, as the
// original's it.set_count(batch_size), also for an epoch's short last batch.
// The loss is read back every step (loss.item()) and slices end without a
// device sync (the original's iteration_wrapper(sync=None)). The original
// has no evaluation in its timed loop; neither do we.
#include <torch/torch.h>

#include <stdexcept>

#include "data/movielens.hpp"
#include "data/ncf_sampler.hpp"
#include "models/neumf.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class Recom : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "dataset (only ml20m)")->capture_default_str();
    app.add_option("-f,--factors", o_.mf_dim, "GMF embedding size")->capture_default_str();
    app.add_option("--layers", o_.layers, "MLP sizes, e.g. 256,256,128,64 (first = both embeddings)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("-l,--learning-rate", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("-b,--batch-size", batch_, "samples per step, negatives included")->capture_default_str();
    app.add_option("-n,--negative-samples", negatives_, "negatives per positive")->capture_default_str();
    app.add_option("--beta1", beta1_, "Adam beta1")->capture_default_str();
    app.add_option("--beta2", beta2_, "Adam beta2")->capture_default_str();
    app.add_option("--eps", eps_, "Adam epsilon")->capture_default_str();
  }

  void run(Session& s) override {
    if (dataset_.find("ml20m") == std::string::npos)
      throw std::invalid_argument("recom: --dataset must name ml20m, got " + dataset_);
    // --workers is the harness's (Session::workers); 0 (not given) keeps this default.
    if (s.workers() > 0) workers_ = s.workers();
    if (batch_ < 1) throw std::invalid_argument("recom: --batch-size must be >= 1");
    NcfTrainSet set = [&] {
      Ml20m data = load_ml20m(s.dataroot());
      return NcfTrainSet(data, negatives_);
    }();
    s.set_dataset(ml20m_provenance(s.dataroot()));
    s.set_metric("users", set.users());
    s.set_metric("items", set.items());
    s.set_metric("train_positives", set.positives());

    o_.users = set.users();
    o_.items = set.items();
    NeuMF model(o_);
    model->to(s.device());
    s.set_model(*model);
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr_).betas({beta1_, beta2_}).eps(eps_));
    model->train();
    s.set_slice_sync(false);
    // Seeded from torch's generator, so --seed fixes the sample order too.
    const auto seed = uint64_t(torch::randint(int64_t(1) << 62, {1}, torch::kLong).item<int64_t>());
    NcfLoader loader(set, batch_, workers_, seed);
    const auto cpu_long = torch::TensorOptions().dtype(torch::kLong);
    while (true) {
      s.begin();
      NcfBatch b = loader.next();
      const int64_t n = int64_t(b.size());
      auto user = torch::from_blob(b.user.data(), {n}, cpu_long).to(s.device(), false, /*copy=*/true);
      auto item = torch::from_blob(b.item.data(), {n}, cpu_long).to(s.device(), false, true);
      auto label = torch::from_blob(b.label.data(), {n, 1}, torch::kFloat).to(s.device(), false, true);
      auto loss = torch::binary_cross_entropy_with_logits(model->forward(user, item), label);
      loss.item<double>();  // the original's it.log(loss=loss.item()): a host read every step
      opt.zero_grad();
      loss.backward();
      opt.step();
      if (!s.step(batch_, loss)) return;
    }
  }

 private:
  NeuMFOptions o_ = [] {  // the original's defaults: -f 8, --layers 64,32,16,8
    NeuMFOptions o;
    o.mf_dim = 8;
    o.layers = {64, 32, 16, 8};
    return o;
  }();
  std::string dataset_ = "milarun.datasets:ml20m";
  double lr_ = 0.001, beta1_ = 0.9, beta2_ = 0.999, eps_ = 1e-8;
  int64_t batch_ = 128;
  int negatives_ = 4, workers_ = 8;
};

}  // namespace

std::unique_ptr<Workload> make_recom() { return std::make_unique<Recom>(); }

}  // namespace milabench
