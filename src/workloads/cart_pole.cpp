// cart: milabench's cart_pole.py (REINFORCE on CartPole-v0), CPU only. As
// the original: every iteration steps the environment exactly
// --episode-length times, resetting whenever an episode ends (v0's 200-step
// limit or a fall), then makes one Adam update over all those steps (the
// discounted returns run across episode boundaries, as the original's reward
// list does), and counts --episode-length. The policy has no dropout.
#include "envs/cart_pole.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear affine1{nullptr}, affine2{nullptr};
  PolicyImpl() {
    affine1 = register_module("affine1", torch::nn::Linear(4, 128));
    affine2 = register_module("affine2", torch::nn::Linear(128, 2));
  }
  // state [B, 4] -> action probabilities [B, 2].
  torch::Tensor forward(const torch::Tensor& x) { return torch::softmax(affine2(torch::relu(affine1(x))), 1); }
};
TORCH_MODULE(Policy);

class CartPoleWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--gamma", gamma_, "discount factor")->capture_default_str();
    app.add_option("--episode-length", episode_length_, "environment steps per update (and per count)")
        ->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("--log-interval", log_interval_, "accepted for compatibility; no effect")->capture_default_str();
    app.add_flag("--no-render", no_render_, "accepted for compatibility; never renders");
  }

  void run(Session& s) override {
    if (episode_length_ < 1) throw std::invalid_argument("--episode-length must be >= 1");
    // CPU only, whatever the harness device is (the original's policy never moves).
    Policy policy;
    s.set_model(*policy);
    s.set_dataset({{"name", "CartPole-v0"}, {"synthetic", true}, {"max_episode_steps", kV0MaxSteps}});
    torch::optim::Adam opt(policy->parameters(), torch::optim::AdamOptions(lr_));
    CartPole env(static_cast<uint32_t>(s.seed()), kV0MaxSteps);  // env.seed(seed)
    const double eps = std::numeric_limits<float>::epsilon();
    const auto n = static_cast<size_t>(episode_length_);
    std::vector<torch::Tensor> log_probs(n);
    std::vector<double> rewards(n), returns(n);
    int64_t updates = 0, episodes_ended = 0, longest = 0;
    while (true) {
      s.begin();
      auto state = env.reset();
      for (size_t t = 0; t < n; ++t) {
        // select_action: Categorical(probs).sample(), log_prob = log(clamped probs).
        auto st =
            torch::tensor({state[0], state[1], state[2], state[3]}, torch::kDouble).to(torch::kFloat).unsqueeze(0);
        auto probs = policy->forward(st);
        int64_t action;
        {
          torch::NoGradGuard ng;
          action = torch::multinomial(probs, 1).item<int64_t>();  // action.item()
        }
        const float tiny = std::numeric_limits<float>::epsilon();
        log_probs[t] = probs.clamp(tiny, 1 - tiny).log().select(1, action);
        auto r = env.step(static_cast<int>(action));
        rewards[t] = r.reward;
        if (r.done) ++episodes_ended, longest = std::max<int64_t>(longest, env.steps());
        state = r.done ? env.reset() : r.state;  // "we actually do not care about solving the thing"
      }
      // finish_episode: returns over the whole list, normalised (unbiased std).
      double R = 0;
      for (size_t i = n; i-- > 0;) returns[i] = R = rewards[i] + gamma_ * R;
      auto ret = torch::tensor(returns, torch::kFloat32);
      ret = (ret - ret.mean()) / (ret.std() + eps);
      auto loss = (-torch::cat(log_probs) * ret).sum();
      opt.zero_grad();
      loss.backward();
      opt.step();
      ++updates;
      if (!s.step(episode_length_, loss)) break;
    }
    s.set_metric("updates", updates);
    s.set_metric("episodes_ended", episodes_ended);
    s.set_metric("longest_episode", longest);
  }

 private:
  static constexpr int kV0MaxSteps = 200;  // CartPole-v0's TimeLimit
  double gamma_ = 0.99;
  int64_t episode_length_ = 500;
  double lr_ = 1e-2;
  int64_t log_interval_ = 10;
  bool no_render_ = false;
};

}  // namespace

std::unique_ptr<Workload> make_cart_pole() { return std::make_unique<CartPoleWorkload>(); }

}  // namespace milabench
