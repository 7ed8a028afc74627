// minigrid: milabench's BabyAI training script (babyai PPOAlgo + ACModel with
// BabyAI's default arguments) on our C++ BabyAI-UnlockPickup-v0. Counts
// frames: procs * frames-per-proc after every update, as the original.
// Host reads as babyai's PPOAlgo: per recurrence step entropy, value mean,
// policy loss and value loss (.item()); per batch the gradient norm and the
// batch loss; per finished episode its return, reshaped return and length.
#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "envs/parallel.hpp"
#include "envs/unlock_pickup.hpp"
#include "models/babyai_acmodel.hpp"
#include "training/init_torch_defaults.hpp"
#include "training/ppo.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// "pick up the <colour> box" with a fixed vocabulary: pick 1, up 2, the 3,
// box 4, colours 5..10 (BabyAI numbers words in order of first sight; the
// ids differ, the shapes and the work do not).
constexpr int64_t kInstrLen = 5;
void mission_tokens(int box_color, int64_t* out) {
  const int64_t t[kInstrLen] = {1, 2, 3, 5 + box_color, 4};
  std::copy(t, t + kInstrLen, out);
}

void write_obs(const UnlockPickup& env, int64_t i, torch::Tensor& obs, torch::Tensor& instr) {
  std::copy(env.obs().begin(), env.obs().end(), obs.data_ptr<uint8_t>() + i * minigrid::kObsSize);
  mission_tokens(env.box_color(), instr.data_ptr<int64_t>() + i * kInstrLen);
}

// The N environments and BaseAlgo's experience buffers: T steps of N
// environments on the device, and the host tensors the environments write.
struct Rollouts {
  // Seeds env i with 100 * seed + i (env.seed(100 * seed + i)) and resets it;
  // M: the model's memory size.
  Rollouts(int64_t N, int64_t T, int64_t M, torch::Device dev, int64_t seed) : N(N), T(T), dev(dev) {
    for (int64_t i = 0; i < N; ++i) envs.emplace_back(static_cast<uint32_t>(100 * seed + i));
    auto u8 = torch::TensorOptions().dtype(torch::kUInt8);
    auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    obs_cpu = torch::empty({N, 7, 7, 3}, u8), instr_cpu = torch::empty({N, kInstrLen}, i64);
    reward_cpu = torch::zeros({N}), done_cpu = torch::zeros({N});
    for (int64_t i = 0; i < N; ++i) {
      envs[i].reset();
      write_obs(envs[i], i, obs_cpu, instr_cpu);
    }
    fopt = torch::TensorOptions().device(dev);
    memory = torch::zeros({N, M}, fopt), mask = torch::ones({N}, fopt);
    obss = torch::empty({T, N, 7, 7, 3}, u8.device(dev)), instrs = torch::empty({T, N, kInstrLen}, i64.device(dev));
    memories = torch::empty({T, N, M}, fopt), masks = torch::empty({T, N}, fopt);
    actions = torch::empty({T, N}, i64.device(dev)), values = torch::empty({T, N}, fopt);
    log_probs = torch::empty({T, N}, fopt), rewards = torch::empty({T, N}, fopt), not_done = torch::empty({T, N}, fopt);
    ep_return = torch::zeros({N}, fopt), ep_reshaped = torch::zeros({N}, fopt), ep_frames = torch::zeros({N}, fopt);
  }

  int64_t N, T;
  torch::Device dev;  // the session's device, as given
  torch::TensorOptions fopt;
  std::vector<UnlockPickup> envs;
  torch::Tensor obs_cpu, instr_cpu, reward_cpu, done_cpu;  // host: what the environments write
  torch::Tensor memory, mask;                              // [N, M], [N]: carried across updates
  torch::Tensor obss, instrs, memories, masks, actions, values, log_probs, rewards, not_done;  // [T, N, ...]
  // BaseAlgo's per-episode log values, kept on the device as babyai's.
  torch::Tensor ep_return, ep_reshaped, ep_frames;
};

// The experiences flattened process-major (index = proc * T + t) so that
// recurrence windows run along one environment's time steps, as BabyAI.
struct Experiences {
  Experiences(const Rollouts& r, const Advantages& a) : dev(r.dev) {
    auto flat = [&](const torch::Tensor& x) {
      auto y = x.transpose(0, 1);
      std::vector<int64_t> shape = {r.N * r.T};
      for (int64_t k = 2; k < x.dim(); ++k) shape.push_back(x.size(k));
      return y.reshape(shape).contiguous();
    };
    obs = flat(r.obss).to(torch::kFloat), instr = flat(r.instrs), mem = flat(r.memories);
    mask = flat(r.masks).unsqueeze(1), act = flat(r.actions), val = flat(r.values);
    logp = flat(r.log_probs), adv = flat(a.advantages), ret = flat(a.returns);
  }
  int64_t size() const { return obs.size(0); }  // N * T
  torch::Device dev;                            // the session's device, as given
  torch::Tensor obs, instr, mem, mask, act, val, logp, adv, ret;
};

class MinigridWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    set_init_torch_defaults(app, 1, 8);  // babyai's ArgumentParser --seed 1, minigrid.py's --workers 8
    // babyai.arguments.ArgumentParser, with milabench's minigrid.py overrides.
    app.add_option("--env", env_, "environment (only BabyAI-UnlockPickup-v0 is built in)")->capture_default_str();
    app.add_option("--model", unused_s_, "accepted for compatibility; nothing is saved");
    app.add_option("--pretrained-model", pretrained_, "not supported: training starts from scratch");
    app.add_flag("--task-id-seed", unused_b_, "accepted for compatibility; no effect");
    app.add_option("--procs", procs_, "number of environments")->capture_default_str();
    app.add_flag("--tb", unused_b_, "accepted for compatibility; no effect");
    app.add_option("--log-interval", unused_i_, "accepted for compatibility; no effect");
    app.add_option("--save-interval", unused_i_, "accepted for compatibility; nothing is saved");
    app.add_option("--frames", unused_d_, "accepted for compatibility; --max-count stops the run");
    app.add_option("--patience", unused_i_, "accepted for compatibility; no effect");
    app.add_option("--epochs", unused_i_, "accepted for compatibility; --max-count stops the run");
    app.add_option("--frames-per-proc", frames_per_proc_, "frames per environment per update")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("--beta1", beta1_, "Adam beta1")->capture_default_str();
    app.add_option("--beta2", beta2_, "Adam beta2")->capture_default_str();
    app.add_option("--recurrence", recurrence_, "steps of backpropagation through the memory")->capture_default_str();
    app.add_option("--optim-eps", optim_eps_, "Adam epsilon")->capture_default_str();
    app.add_option("--optim-alpha", unused_d_, "accepted for compatibility (RMSprop only)");
    app.add_option("--batch-size", batch_size_, "PPO batch size in frames")->capture_default_str();
    app.add_option("--entropy-coef", entropy_coef_, "entropy term coefficient")->capture_default_str();
    app.add_option("--image-dim", mo_.image_dim, "image embedding size")->capture_default_str();
    app.add_option("--memory-dim", mo_.memory_dim, "memory LSTM size")->capture_default_str();
    app.add_option("--instr-dim", mo_.instr_dim, "instruction embedding size")->capture_default_str();
    app.add_flag("--no-instr", no_instr_, "don't use the instruction");
    app.add_option("--instr-arch", mo_.instr_arch, "instruction encoder (gru)")->capture_default_str();
    app.add_flag("--no-mem", no_mem_, "don't use memory");
    app.add_option("--arch", mo_.arch, "image architecture: expert_filmcnn or cnn1")->capture_default_str();
    app.add_option("--val-seed", unused_i_, "accepted for compatibility; no validation");
    app.add_option("--val-interval", unused_i_, "accepted for compatibility; no validation");
    app.add_option("--val-episodes", unused_i_, "accepted for compatibility; no validation");
    app.add_option("--algo", algo_, "algorithm (ppo)")->capture_default_str();
    app.add_option("--discount", discount_, "discount factor")->capture_default_str();
    app.add_option("--reward-scale", reward_scale_, "reward multiplier")->capture_default_str();
    app.add_option("--gae-lambda", gae_lambda_, "GAE lambda")->capture_default_str();
    app.add_option("--value-loss-coef", value_loss_coef_, "value loss coefficient")->capture_default_str();
    app.add_option("--max-grad-norm", max_grad_norm_, "gradient norm clip")->capture_default_str();
    app.add_option("--clip-eps", clip_eps_, "PPO clipping epsilon")->capture_default_str();
    app.add_option("--ppo-epochs", ppo_epochs_, "PPO epochs per update")->capture_default_str();
    app.add_option("--env-threads", env_threads_, "threads stepping the environments (ours)")->capture_default_str();
  }

  void run(Session& s) override {
    validate();
    mo_.use_instr = !no_instr_;
    mo_.use_memory = !no_mem_;
    const auto dev = s.device();
    BabyAIModel model(mo_);
    model->to(dev);
    model->train();  // BabyAI never switches to eval: BatchNorm uses batch statistics
    s.set_model(*model);
    s.set_dataset({{"name", "BabyAI-UnlockPickup-v0"}, {"synthetic", true}, {"generator", "milarun (C++ env)"}});
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr_).betas({beta1_, beta2_}).eps(optim_eps_));

    const int64_t N = procs_, T = frames_per_proc_;
    Rollouts r(N, T, model->memory_size(), dev, s.seed());
    double host_reads = 0;  // what babyai logs; read as it does, then unused
    while (true) {
      s.begin();
      auto next_value = collect_experiences(model, r, host_reads);
      auto adv = gae(r.rewards, r.values, next_value, r.not_done, discount_, gae_lambda_);
      Experiences e(r, adv);
      const double mean = update_parameters(model, opt, e, host_reads);
      if (!s.step(N * T, torch::scalar_tensor(mean, torch::kDouble))) break;
    }
    (void)host_reads;
  }

 private:
  // BaseAlgo.collect_experiences: T steps of every environment into r's
  // buffers. Returns the value of the state after the last step [N] (no grad).
  torch::Tensor collect_experiences(BabyAIModel& model, Rollouts& r, double& host_reads) {
    auto obs = r.obs_cpu.to(r.dev), instr = r.instr_cpu.to(r.dev);
    for (int64_t t = 0; t < r.T; ++t) rollout_step(model, r, t, obs, instr, host_reads);
    torch::NoGradGuard ng;
    return model->forward(obs.to(torch::kFloat), instr, r.memory * r.mask.unsqueeze(1)).value;
  }

  // Step t of the rollout: act on (obs, instr), step the environments, then
  // obs and instr become their next observation. Host reads: the actions, and
  // per finished episode its return, reshaped return and length.
  void rollout_step(BabyAIModel& model, Rollouts& r, int64_t t, torch::Tensor& obs, torch::Tensor& instr,
                    double& host_reads) {
    const int64_t N = r.N;
    const auto dev = r.dev;
    torch::Tensor action;
    {
      torch::NoGradGuard ng;
      auto out = model->forward(obs.to(torch::kFloat), instr, r.memory * r.mask.unsqueeze(1));
      action = sample_actions(out.logits);
      r.obss[t] = obs, r.instrs[t] = instr, r.memories[t] = r.memory, r.masks[t] = r.mask;
      r.actions[t] = action, r.values[t] = out.value, r.log_probs[t] = log_prob(out.logits, action);
      r.memory = out.memory;
    }
    auto action_cpu = action.to(torch::kCPU);
    const int64_t* a = action_cpu.data_ptr<int64_t>();
    float* rew = r.reward_cpu.data_ptr<float>();
    float* d = r.done_cpu.data_ptr<float>();
    parallel_for(static_cast<int>(N), env_threads_, [&](int i) {
      auto st = r.envs[i].step(static_cast<int>(a[i]));
      rew[i] = static_cast<float>(st.reward);
      d[i] = st.done ? 1.f : 0.f;
      if (st.done) r.envs[i].reset();
      write_obs(r.envs[i], i, r.obs_cpu, r.instr_cpu);
    });
    obs = r.obs_cpu.to(dev), instr = r.instr_cpu.to(dev);
    r.mask = 1 - r.done_cpu.to(dev);
    r.rewards[t] = reward_scale_ * r.reward_cpu.to(dev);
    r.not_done[t] = r.mask;
    r.ep_return += r.reward_cpu.to(dev);
    r.ep_reshaped += r.rewards[t];
    r.ep_frames += torch::ones({N}, r.fopt);
    for (int64_t i = 0; i < N; ++i)
      if (d[i] != 0.f)
        host_reads += r.ep_return[i].item<double>() + r.ep_reshaped[i].item<double>() + r.ep_frames[i].item<double>();
    r.ep_return *= r.mask, r.ep_reshaped *= r.mask, r.ep_frames *= r.mask;
  }

  // PPOAlgo.update_parameters: --ppo-epochs passes over e in shuffled batches
  // of --batch-size frames. Returns the mean of the batch losses.
  double update_parameters(BabyAIModel& model, torch::optim::Adam& opt, Experiences& e, double& host_reads) {
    std::vector<double> losses;  // logs["loss"] = mean of the batch losses
    const int64_t per_batch = batch_size_ / recurrence_;
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    for (int64_t epoch = 0; epoch < ppo_epochs_; ++epoch) {
      auto starts = torch::randperm(e.size() / recurrence_, i64) * recurrence_;
      for (int64_t b = 0; b < starts.size(0); b += per_batch) {
        auto inds = starts.narrow(0, b, std::min(per_batch, starts.size(0) - b)).to(e.dev);
        losses.push_back(update_batch(model, opt, e, inds, host_reads));
      }
    }
    double mean = 0;
    for (double l : losses) mean += l / double(losses.size());
    losses.clear();
    return mean;
  }

  // One batch: --recurrence steps from each start in inds (writing the
  // recomputed memories back into e.mem), one optimizer step. Host reads: four
  // per recurrence step, then the gradient norm. Returns the batch loss (read).
  double update_batch(BabyAIModel& model, torch::optim::Adam& opt, Experiences& e, const torch::Tensor& inds,
                      double& host_reads) {
    const auto fopt = torch::TensorOptions().device(e.dev);
    auto mem = e.mem.index_select(0, inds);
    torch::Tensor loss = torch::zeros({}, fopt);
    for (int64_t i = 0; i < recurrence_; ++i) {
      auto idx = inds + i;
      auto out =
          model->forward(e.obs.index_select(0, idx), e.instr.index_select(0, idx), mem * e.mask.index_select(0, idx));
      auto terms =
          ppo_terms(out.logits, e.act.index_select(0, idx), e.logp.index_select(0, idx), e.adv.index_select(0, idx),
                    out.value, e.val.index_select(0, idx), e.ret.index_select(0, idx), clip_eps_);
      loss = loss + terms.policy_loss - entropy_coef_ * terms.entropy + value_loss_coef_ * terms.value_loss;
      host_reads += terms.entropy.item<double>() + out.value.mean().item<double>() + terms.policy_loss.item<double>() +
                    terms.value_loss.item<double>();
      mem = out.memory;
      if (i < recurrence_ - 1) e.mem.index_copy_(0, idx + 1, mem.detach());
    }
    loss = loss / static_cast<double>(recurrence_);
    opt.zero_grad();
    loss.backward();
    auto grad_norm = torch::zeros({}, fopt);  // babyai's logged norm, before clipping
    for (const auto& p : model->parameters())
      if (p.grad().defined()) grad_norm = grad_norm + p.grad().norm(2).pow(2);
    grad_norm = grad_norm.pow(0.5);
    torch::nn::utils::clip_grad_norm_(model->parameters(), max_grad_norm_);
    opt.step();
    host_reads += grad_norm.item<double>();
    return loss.item<double>();
  }

  void validate() const {
    if (env_ != "BabyAI-UnlockPickup-v0")
      throw std::invalid_argument("--env " + env_ + ": only BabyAI-UnlockPickup-v0 is built in");
    if (algo_ != "ppo") throw std::invalid_argument("--algo " + algo_ + ": only ppo is implemented (as the original)");
    if (!pretrained_.empty()) throw std::invalid_argument("--pretrained-model is not supported");
    if (procs_ < 1 || frames_per_proc_ < 1 || recurrence_ < 1 || batch_size_ < 1 || ppo_epochs_ < 1)
      throw std::invalid_argument("--procs, --frames-per-proc, --recurrence, --batch-size, --ppo-epochs must be >= 1");
    if (frames_per_proc_ % recurrence_ != 0)
      throw std::invalid_argument("--frames-per-proc must be a multiple of --recurrence");
    if (batch_size_ % recurrence_ != 0)
      throw std::invalid_argument("--batch-size must be a multiple of --recurrence (as BabyAI's PPOAlgo asserts)");
  }

  std::string env_ = "BabyAI-UnlockPickup-v0", algo_ = "ppo", pretrained_, unused_s_;
  bool unused_b_ = false, no_instr_ = false, no_mem_ = false;
  int64_t unused_i_ = 0;
  double unused_d_ = 0;
  int64_t procs_ = 64, frames_per_proc_ = 40, recurrence_ = 20, batch_size_ = 1280, ppo_epochs_ = 4;
  double lr_ = 1e-4, beta1_ = 0.9, beta2_ = 0.999, optim_eps_ = 1e-5, entropy_coef_ = 0.01;
  double discount_ = 0.99, reward_scale_ = 20.0, gae_lambda_ = 0.99, value_loss_coef_ = 0.5;
  double max_grad_norm_ = 0.5, clip_eps_ = 0.2;
  int env_threads_ = 1;
  BabyAIModelOptions mo_;
};

}  // namespace

std::unique_ptr<Workload> make_minigrid() { return std::make_unique<MinigridWorkload>(); }

}  // namespace milabench
