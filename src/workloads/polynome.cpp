// toy_reg: milabench's polynome.py (fit a random degree-d polynomial with
// Linear(d, 1)). As the original: each batch is drawn and featurised on the
// host, copied to the device, the loss is read back every step (loss.item()),
// and the update is plain p -= 0.01 * grad by hand. Counts --batch-size per step.
#include <torch/torch.h>

#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class Polynome : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--poly-degree", degree_, "degree of the polynomial")->capture_default_str();
    app.add_option("--batch-size", batch_, "samples per step")->capture_default_str();
    app.add_option("--lr", lr_, "SGD learning rate (the original hard-codes 0.01)")->capture_default_str();
  }

  void run(Session& s) override {
    if (degree_ < 1 || batch_ < 1) throw std::invalid_argument("--poly-degree and --batch-size must be >= 1");
    // Target and data live on the host, as the original's.
    auto w_target = torch::randn({degree_, 1}) * 5;
    const double b_target = (torch::randn({1}) * 5).item<double>();
    torch::nn::Linear fc(degree_, 1);
    fc->to(s.device());
    s.set_model(*fc);
    s.set_dataset({{"name", "polynome"}, {"synthetic", true}, {"degree", degree_}});
    auto params = fc->parameters();
    std::vector<torch::Tensor> columns(static_cast<size_t>(degree_));
    int64_t updates = 0;
    while (true) {
      s.begin();
      torch::Tensor x, y;
      {  // get_batch(): features [x, x^2, ..., x^d] of randn(batch) and f(x)
        torch::NoGradGuard ng;
        auto r = torch::randn({batch_}).unsqueeze(1);
        for (int64_t i = 1; i <= degree_; ++i) columns[size_t(i - 1)] = r.pow(i);
        x = torch::cat(columns, 1);
        y = x.mm(w_target) + b_target;
      }
      x = x.to(s.device());
      y = y.to(s.device());
      fc->zero_grad();
      auto loss = torch::smooth_l1_loss(fc(x), y);
      loss.item<double>();  // the original's loss = output.item(): a host read every step
      loss.backward();
      {
        torch::NoGradGuard ng;
        for (auto& p : params) p.add_(-lr_ * p.grad());
      }
      ++updates;
      if (!s.step(batch_, loss)) break;
    }
    s.set_metric("updates", updates);
  }

 private:
  int64_t degree_ = 4;
  int64_t batch_ = 64;
  double lr_ = 0.01;
};

}  // namespace

std::unique_ptr<Workload> make_polynome() { return std::make_unique<Polynome>(); }

}  // namespace milabench
