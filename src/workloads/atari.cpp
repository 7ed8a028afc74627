// atari: milabench's atari.py (pytorch-a2c-ppo-acktr main loop) on our C++
// Pong-like game behind the Atari wrappers. --algorithm a2c (the original's
// default: one RMSprop update over the whole rollout) or ppo (the profiles':
// --ppo-epoch x --num-mini-batch Adam updates). As the original's agents, the
// value loss, action loss and entropy are read back (.item()) after every
// update. Counts as the original: it.set_count(num_processes) once per
// update, i.e. one unit per environment rollout of --num-steps agent steps
// (x4 frames with frame skip).
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "envs/parallel.hpp"
#include "envs/pong.hpp"
#include "models/atari_cnn.hpp"
#include "results/stand_ins.hpp"
#include "sys/cpus.hpp"
#include "training/ppo.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class AtariWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    // Flags and defaults of milabench's atari.py (coleo arguments).
    app.add_option("--algorithm,--algo", algo_, "a2c (default) | ppo | acktr (not implemented)")->capture_default_str();
    app.add_option("--gail-epoch", unused_i_, "accepted for compatibility; no GAIL");
    app.add_option("--lr", lr_, "learning rate")->capture_default_str();
    app.add_option("--gail-experts-dir", unused_s_, "accepted for compatibility; no GAIL");
    app.add_option("--gail-batch-size", unused_i_, "accepted for compatibility; no GAIL");
    app.add_flag("--gail", gail_, "not supported");
    app.add_option("--eps", eps_, "optimizer epsilon")->capture_default_str();
    app.add_option("--alpha", alpha_, "RMSprop alpha (a2c)")->capture_default_str();
    app.add_option("--gamma", gamma_, "discount factor")->capture_default_str();
    app.add_flag("--use-gae", use_gae_, "use generalized advantage estimation");
    app.add_option("--gae-lambda", gae_lambda_, "GAE lambda")->capture_default_str();
    app.add_option("--entropy-coef", entropy_coef_, "entropy term coefficient")->capture_default_str();
    app.add_option("--value-loss-coef", value_loss_coef_, "value loss coefficient")->capture_default_str();
    app.add_option("--max-grad-norm", max_grad_norm_, "gradient norm clip")->capture_default_str();
    app.add_flag("--cuda-deterministic", unused_b_, "accepted for compatibility; no effect");
    app.add_option("--num-processes", num_processes_, "environments stepped together")->capture_default_str();
    app.add_option("--num-steps", num_steps_, "rollout length per environment")->capture_default_str();
    app.add_option("--ppo-epoch", ppo_epoch_, "PPO epochs per update")->capture_default_str();
    app.add_option("--num-mini-batch", num_mini_batch_, "PPO minibatches per epoch")->capture_default_str();
    app.add_option("--clip-param", clip_param_, "PPO clip parameter")->capture_default_str();
    app.add_option("--num-env-steps", num_env_steps_, "sets the linear lr decay horizon")->capture_default_str();
    app.add_option("--env-name", env_name_, "environment (PongNoFrameskip-v4: our Pong-like game)")
        ->capture_default_str();
    app.add_option("--log-dir", unused_s_, "accepted for compatibility; no logs");
    app.add_option("--save-dir", unused_s_, "accepted for compatibility; nothing is saved");
    app.add_flag("--use-proper-time-limits", unused_b_, "accepted; Pong has no time-limit truncation here");
    app.add_flag("--recurrent-policy", recurrent_, "not supported");
    app.add_flag("--use-linear-lr-decay", linear_lr_decay_, "decay the learning rate linearly");
    app.add_option("--iterations", unused_i_, "accepted for compatibility; --max-count stops the run");
    app.add_option("--env-threads", env_threads_, "threads stepping the games (ours; 0 = available CPUs)")
        ->capture_default_str();
  }

  void run(Session& s) override {
    validate();
    const auto dev = s.device();
    const int64_t P = num_processes_, T = num_steps_;
    const int threads = env_threads_ > 0 ? env_threads_ : usable_cpu_count();
    const auto seed = static_cast<uint32_t>(s.seed());  // make_vec_envs(env_name, seed, ...)
    PongVecEnv envs(static_cast<int>(P), seed, threads);
    AtariPolicy policy(pong::kStack, pong::kNumActions);
    policy->to(dev);
    s.set_model(*policy);
    s.set_dataset({{"name", env_name_},
                   {"synthetic", true},
                   {"generator", "milarun Pong-like game (not the Arcade Learning Environment)"},
                   {"stand_in", kPongLikeGame}});
    const auto optimizer = make_optimizer(*policy);
    auto& opt = *optimizer;

    Rollouts r(P, T, dev);
    r.obs[0] = r.wrap(envs.reset()).to(dev);
    const int64_t num_updates = std::max<int64_t>(1, static_cast<int64_t>(num_env_steps_) / T / P);
    double last_return = 0;
    UpdateStats stats;
    s.set_metric("algorithm", algo_);
    for (int64_t j = 0;; ++j) {
      s.begin();
      if (linear_lr_decay_) set_learning_rate(opt, lr_ - lr_ * (double(j) / double(num_updates)));
      collect(policy, envs, r);
      auto vals = r.values.narrow(0, 0, T);
      auto adv = gae(r.rewards, vals, r.values[T], r.not_done, gamma_, use_gae_ ? gae_lambda_ : 1.0);
      auto b_obs = r.obs.narrow(0, 0, T).reshape({T * P, pong::kStack, pong::kObs, pong::kObs});
      auto b_act = r.actions.reshape({-1});
      LossTerms terms;
      if (algo_ == "a2c")
        update_a2c(policy, opt, r, adv, b_obs, b_act, terms, stats);
      else
        update_ppo(policy, opt, r, adv, vals, b_obs, b_act, terms, stats);
      r.obs[0] = r.obs[T];  // RolloutStorage.after_update
      for (double ret : envs.take_finished_returns()) last_return = ret;
      s.set_metric("last_episode_return", last_return);
      s.set_metric("value_loss", stats.last_terms[0]);
      s.set_metric("action_loss", stats.last_terms[1]);
      const double loss =
          stats.last_terms[0] * value_loss_coef_ + stats.last_terms[1] - stats.last_terms[2] * entropy_coef_;
      const bool more = s.step(P, torch::scalar_tensor(loss, torch::kDouble));
      s.set_metric("updates", stats.updates);
      if (!more) break;
    }
  }

 private:
  // RolloutStorage: T steps of P environments, on the device; obs and values
  // have T + 1 rows (the state and value after the last step).
  struct Rollouts {
    Rollouts(int64_t P, int64_t T, torch::Device dev) : P(P), T(T), dev(dev) {
      auto fopt = torch::TensorOptions().device(dev);
      obs = torch::empty({T + 1, P, pong::kStack, pong::kObs, pong::kObs}, u8.device(dev));
      rewards = torch::empty({T, P}, fopt), values = torch::empty({T + 1, P}, fopt);
      not_done = torch::empty({T, P}, fopt), log_probs = torch::empty({T, P}, fopt);
      actions = torch::empty({T, P}, torch::TensorOptions().dtype(torch::kInt64).device(dev));
      reward_cpu = torch::empty({P}), done_cpu = torch::empty({P}, u8);
    }
    // The games' stacked frames [P, stack, 84, 84] as a CPU tensor over v (no copy).
    torch::Tensor wrap(const std::vector<uint8_t>& v) const {
      return torch::from_blob(const_cast<uint8_t*>(v.data()), {P, pong::kStack, pong::kObs, pong::kObs}, u8);
    }
    int64_t P, T;
    torch::Device dev;  // the session's device, as given
    torch::TensorOptions u8 = torch::TensorOptions().dtype(torch::kUInt8);
    torch::Tensor obs, rewards, values, not_done, log_probs, actions;
    torch::Tensor reward_cpu, done_cpu;  // what the games write each step (host)
  };

  // The agents' three terms of the last update (device scalars).
  struct LossTerms {
    torch::Tensor value_loss, action_loss, dist_entropy;
  };
  struct UpdateStats {
    int64_t updates = 0;                 // optimizer steps so far
    std::array<double, 3> last_terms{};  // value loss, action loss, entropy of the last one
  };

  // algo.A2C_ACKTR: RMSprop(lr, eps, alpha); algo.PPO: Adam(lr, eps).
  std::unique_ptr<torch::optim::Optimizer> make_optimizer(AtariPolicyImpl& policy) const {
    std::unique_ptr<torch::optim::Optimizer> optimizer;
    if (algo_ == "a2c")
      optimizer = std::make_unique<torch::optim::RMSprop>(policy.parameters(),
                                                          torch::optim::RMSpropOptions(lr_).eps(eps_).alpha(alpha_));
    else
      optimizer = std::make_unique<torch::optim::Adam>(policy.parameters(), torch::optim::AdamOptions(lr_).eps(eps_));
    return optimizer;
  }

  // T agent steps of every game: rows 1..T of obs, 0..T of values (the last
  // one the bootstrap value), 0..T-1 of the rest. One host read per step: the actions.
  void collect(AtariPolicy& policy, PongVecEnv& envs, Rollouts& r) {
    const int64_t T = r.T;
    const auto dev = r.dev;
    for (int64_t t = 0; t < T; ++t) {
      torch::Tensor action;
      {
        torch::NoGradGuard ng;
        auto out = policy->forward(r.obs[t]);
        action = sample_actions(out.logits);
        r.values[t] = out.value, r.actions[t] = action, r.log_probs[t] = log_prob(out.logits, action);
      }
      auto action_cpu = action.to(torch::kCPU).contiguous();
      const auto& next =
          envs.step(action_cpu.data_ptr<int64_t>(), r.reward_cpu.data_ptr<float>(), r.done_cpu.data_ptr<uint8_t>());
      r.obs[t + 1] = r.wrap(next).to(dev);
      r.rewards[t] = r.reward_cpu.to(dev);
      r.not_done[t] = 1 - r.done_cpu.to(dev, torch::kFloat);
    }
    {
      torch::NoGradGuard ng;
      r.values[T] = policy->forward(r.obs[T]).value;
    }
  }

  // Clips, steps and reads the three terms back, as the agents' update().
  void apply(AtariPolicy& policy, torch::optim::Optimizer& opt, const LossTerms& terms, UpdateStats& stats) {
    const auto loss = terms.value_loss * value_loss_coef_ + terms.action_loss - terms.dist_entropy * entropy_coef_;
    opt.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy->parameters(), max_grad_norm_);
    opt.step();
    ++stats.updates;
    stats.last_terms = {terms.value_loss.item<double>(), terms.action_loss.item<double>(),
                        terms.dist_entropy.item<double>()};
  }

  // A2C_ACKTR.update: one step over the whole rollout (b_obs, b_act: its T*P
  // observations and actions).
  void update_a2c(AtariPolicy& policy, torch::optim::Optimizer& opt, const Rollouts& r, const Advantages& adv,
                  const torch::Tensor& b_obs, const torch::Tensor& b_act, LossTerms& terms, UpdateStats& stats) {
    const int64_t T = r.T, P = r.P;
    auto out = policy->forward(b_obs);
    auto advantages = adv.returns - out.value.view({T, P});
    terms.value_loss = advantages.pow(2).mean();
    terms.action_loss = -(advantages.detach() * log_prob(out.logits, b_act).view({T, P})).mean();
    terms.dist_entropy = entropy(out.logits).mean();
    apply(policy, opt, terms, stats);
  }

  // PPO.update: normalised advantages, --ppo-epoch passes of --num-mini-batch
  // shuffled minibatches over the T*P steps (vals: values[0..T-1]).
  void update_ppo(AtariPolicy& policy, torch::optim::Optimizer& opt, const Rollouts& r, const Advantages& adv,
                  const torch::Tensor& vals, const torch::Tensor& b_obs, const torch::Tensor& b_act, LossTerms& terms,
                  UpdateStats& stats) {
    const int64_t T = r.T, P = r.P;
    const auto dev = r.dev;
    auto a = adv.returns - vals;
    a = (a - a.mean()) / (a.std() + 1e-5);
    auto b_logp = r.log_probs.reshape({-1}), b_adv = a.reshape({-1});
    auto b_val = vals.reshape({-1}), b_ret = adv.returns.reshape({-1});
    const int64_t mb = T * P / num_mini_batch_;
    for (int64_t e = 0; e < ppo_epoch_; ++e) {
      auto perm = torch::randperm(T * P, torch::TensorOptions().dtype(torch::kInt64).device(dev));
      for (int64_t m = 0; m < num_mini_batch_; ++m) {
        auto idx = perm.narrow(0, m * mb, mb);
        auto out = policy->forward(b_obs.index_select(0, idx));
        auto pt =
            ppo_terms(out.logits, b_act.index_select(0, idx), b_logp.index_select(0, idx), b_adv.index_select(0, idx),
                      out.value, b_val.index_select(0, idx), b_ret.index_select(0, idx), clip_param_);
        // pytorch-a2c-ppo-acktr halves the clipped value loss.
        terms.value_loss = 0.5 * pt.value_loss, terms.action_loss = pt.policy_loss, terms.dist_entropy = pt.entropy;
        apply(policy, opt, terms, stats);
      }
    }
  }

  void validate() const {
    if (algo_ == "acktr")
      throw std::invalid_argument("--algorithm acktr (K-FAC) is not implemented; use a2c (the default) or ppo");
    if (algo_ != "a2c" && algo_ != "ppo")
      throw std::invalid_argument("--algorithm " + algo_ + ": must be a2c, ppo or acktr");
    if (env_name_ != "PongNoFrameskip-v4")
      throw std::invalid_argument("--env-name " + env_name_ +
                                  ": only PongNoFrameskip-v4 (our Pong-like game) is built in");
    if (gail_ || recurrent_) throw std::invalid_argument("--gail and --recurrent-policy are not supported");
    if (num_processes_ < 1 || num_steps_ < 1 || ppo_epoch_ < 1 || num_mini_batch_ < 1)
      throw std::invalid_argument("--num-processes, --num-steps, --ppo-epoch, --num-mini-batch must be >= 1");
    if (num_processes_ * num_steps_ < num_mini_batch_)
      throw std::invalid_argument("--num-mini-batch must not exceed --num-processes x --num-steps");
  }

  std::string algo_ = "a2c", env_name_ = "PongNoFrameskip-v4", unused_s_;
  bool gail_ = false, use_gae_ = false, unused_b_ = false, recurrent_ = false, linear_lr_decay_ = false;
  int64_t unused_i_ = 0;
  double lr_ = 7e-4, eps_ = 1e-5, gamma_ = 0.99, gae_lambda_ = 0.95, entropy_coef_ = 0.01;
  double alpha_ = 0.99, value_loss_coef_ = 0.5, max_grad_norm_ = 0.5, clip_param_ = 0.2, num_env_steps_ = 10e6;
  int64_t num_processes_ = 16, num_steps_ = 5, ppo_epoch_ = 4, num_mini_batch_ = 32;
  int env_threads_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_atari() { return std::make_unique<AtariWorkload>(); }

}  // namespace milabench
