// toy_reg: PyTorch's polynomial regression example (fit a random degree-d
// polynomial with Linear(d, 1)); data drawn on the device. Counts samples.
#include <torch/torch.h>

#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class Polynome : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--poly-degree", degree_, "degree of the polynomial")->capture_default_str();
    app.add_option("--batch-size", batch_, "samples per step")->capture_default_str();
    app.add_option("--lr", lr_, "SGD learning rate")->capture_default_str();
  }

  void run(Session& s) override {
    if (degree_ < 1 || batch_ < 1) throw std::invalid_argument("--poly-degree and --batch-size must be >= 1");
    auto opts = torch::TensorOptions().device(s.device());
    auto w_target = torch::randn({degree_, 1}, opts) * 5;
    auto b_target = torch::randn({1}, opts) * 5;
    torch::nn::Linear fc(degree_, 1);
    fc->to(s.device());
    s.set_model(*fc);
    torch::optim::SGD opt(fc->parameters(), torch::optim::SGDOptions(lr_));
    auto powers = torch::arange(1, degree_ + 1, opts).unsqueeze(0);
    do {
      torch::Tensor x, y;
      {
        torch::NoGradGuard ng;
        x = torch::randn({batch_, 1}, opts).pow(powers);
        y = x.mm(w_target) + b_target;
      }
      opt.zero_grad();
      auto loss = torch::smooth_l1_loss(fc(x), y);
      loss.backward();
      opt.step();
      if (!s.step(batch_, loss)) break;
    } while (true);
  }

 private:
  int64_t degree_ = 4;
  int64_t batch_ = 64;
  double lr_ = 0.1;
};

}  // namespace

std::unique_ptr<Workload> make_polynome() { return std::make_unique<Polynome>(); }

}  // namespace milabench
