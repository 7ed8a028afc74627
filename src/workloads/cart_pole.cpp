// cart: PyTorch's REINFORCE example on CartPole-v1, CPU only. Counts
// environment steps: step(steps_in_episode) after each episode's update.
#include <torch/torch.h>

#include <limits>
#include <stdexcept>

#include "envs/cart_pole.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear affine1{nullptr}, affine2{nullptr};
  torch::nn::Dropout dropout{nullptr};
  PolicyImpl() {
    affine1 = register_module("affine1", torch::nn::Linear(4, 128));
    dropout = register_module("dropout", torch::nn::Dropout(0.6));
    affine2 = register_module("affine2", torch::nn::Linear(128, 2));
  }
  // state [B, 4] -> action probabilities [B, 2].
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::softmax(affine2(torch::relu(dropout(affine1(x)))), 1);
  }
};
TORCH_MODULE(Policy);

class CartPoleWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--gamma", gamma_, "discount factor")->capture_default_str();
    app.add_option("--episode-length", episode_length_, "max steps per episode")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("--log-interval", log_interval_, "accepted for compatibility; no effect")
        ->capture_default_str();
    app.add_flag("--no-render", no_render_, "accepted for compatibility; never renders");
  }

  void run(Session& s) override {
    if (episode_length_ < 1) throw std::invalid_argument("--episode-length must be >= 1");
    // CPU only, whatever the harness device is (the original ignores CUDA).
    Policy policy;
    s.set_model(*policy);
    s.set_dataset({{"name", "CartPole-v1"}, {"synthetic", true}});
    torch::optim::Adam opt(policy->parameters(), torch::optim::AdamOptions(lr_));
    // Env seed drawn from torch's generator so the harness's --seed fixes it.
    CartPole env(static_cast<uint32_t>(torch::randint(0, 1 << 30, {1}).item<int64_t>()),
                 static_cast<int>(episode_length_));
    const double eps = std::numeric_limits<float>::epsilon();
    policy->train();
    while (true) {
      auto state = env.reset();
      std::vector<torch::Tensor> log_probs;
      std::vector<double> rewards;
      while (true) {
        auto st = torch::tensor({state[0], state[1], state[2], state[3]}, torch::kFloat32).unsqueeze(0);
        auto probs = policy->forward(st);
        int64_t action;
        {
          torch::NoGradGuard ng;
          action = torch::multinomial(probs, 1).item<int64_t>();
        }
        log_probs.push_back(torch::log(probs[0][action]));
        auto r = env.step(static_cast<int>(action));
        rewards.push_back(r.reward);
        state = r.state;
        if (r.done) break;
      }
      const int64_t steps = static_cast<int64_t>(rewards.size());
      std::vector<double> returns(rewards.size());
      double R = 0;
      for (int64_t i = steps - 1; i >= 0; --i) returns[i] = R = rewards[i] + gamma_ * R;
      auto ret = torch::tensor(returns, torch::kFloat32);
      if (steps > 1) ret = (ret - ret.mean()) / (ret.std() + eps);
      else ret = ret - ret.mean();
      auto loss = -(torch::stack(log_probs) * ret).sum();
      opt.zero_grad();
      loss.backward();
      opt.step();
      s.set_metric("last_episode_length", steps);
      if (!s.step(steps, loss)) break;
    }
  }

 private:
  double gamma_ = 0.99;
  int64_t episode_length_ = 500;
  double lr_ = 1e-2;
  int64_t log_interval_ = 10;
  bool no_render_ = false;
};

}  // namespace

std::unique_ptr<Workload> make_cart_pole() { return std::make_unique<CartPoleWorkload>(); }

}  // namespace milabench
