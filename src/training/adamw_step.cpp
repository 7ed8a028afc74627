#include "training/adamw_step.hpp"

#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "compat/torch_compat.hpp"

namespace milabench {

namespace {

// torch::optim::Optimizer's state key of a parameter: its TensorImpl as a
// string in libtorch 1.13 (c10::guts::to_string), the pointer itself where
// the map is keyed by void*.
template <class Key>
Key state_key(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << p.unsafeGetTensorImpl();
    return s.str();
  } else {
    return p.unsafeGetTensorImpl();
  }
}

}  // namespace

AdamWKernel default_adamw_kernel(const torch::Device& device) {
  return device.is_cuda() && compat::has_fused_adamw(c10::DeviceType::CUDA) ? AdamWKernel::fused : AdamWKernel::loop;
}

std::string adamw_kernel_name(AdamWKernel k) {
  return k == AdamWKernel::fused ? "AdamW, fused (one at::_fused_adamw_ kernel per group)"
                                 : "AdamW, per parameter (torch::optim::AdamW)";
}

AdamWStep::AdamWStep(torch::optim::AdamW& optimizer, AdamWKernel kernel, const torch::Device& device,
                     FusedAdamWKernel fused_kernel)
    : opt_(optimizer), kernel_(kernel), fused_kernel_(std::move(fused_kernel)), device_(device) {
  for (auto& g : opt_.param_groups())
    if (static_cast<torch::optim::AdamWOptions&>(g.options()).amsgrad())
      throw std::invalid_argument("AdamWStep: amsgrad is not supported");
  if (kernel_ != AdamWKernel::fused || fused_kernel_) return;
  if (!compat::has_fused_adamw(device.type()))
    throw std::invalid_argument("AdamWStep: libtorch " + std::string(compat::torch_version()) +
                                " has no fused AdamW kernel for " + device.str());
  fused_kernel_ = [](at::TensorList p, at::TensorList g, at::TensorList m, at::TensorList v, at::TensorList s,
                     double lr, double b1, double b2, double wd,
                     double eps) { compat::fused_adamw(p, g, m, v, s, lr, b1, b2, wd, eps); };
}

void AdamWStep::step() {
  if (kernel_ == AdamWKernel::loop) {
    opt_.step();
    return;
  }
  torch::NoGradGuard no_grad;
  for (auto& group : opt_.param_groups()) fused_group(group);
}

torch::optim::AdamWParamState& AdamWStep::state_of(const torch::Tensor& p) {
  auto& states = opt_.state();
  using Key = typename std::decay_t<decltype(states)>::key_type;
  const Key key = state_key<Key>(p);
  auto it = states.find(key);
  if (it == states.end()) {  // as torch's AdamW: step 0, zero moments shaped and placed as the parameter
    auto s = std::make_unique<torch::optim::AdamWParamState>();
    s->step(0);
    s->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    s->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    it = states.emplace(key, std::move(s)).first;
  }
  return static_cast<torch::optim::AdamWParamState&>(*it->second);
}

torch::Tensor AdamWStep::count_step(const torch::Tensor& p, int64_t step) {
  auto& [count, tensor] = steps_[p.unsafeGetTensorImpl()];
  if (!tensor.defined() || count != step)
    tensor = torch::full({}, static_cast<double>(step), p.options().dtype(torch::kFloat32));
  count = step + 1;  // the group's _foreach_add_ brings the tensor there
  return tensor;
}

void AdamWStep::fused_group(torch::optim::OptimizerParamGroup& group) {
  const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
  for (const auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    auto& s = state_of(p);
    steps.push_back(count_step(p, s.step()));
    s.step(s.step() + 1);
    params.push_back(p);
    grads.push_back(p.grad());
    exp_avgs.push_back(s.exp_avg());
    exp_avg_sqs.push_back(s.exp_avg_sq());
  }
  if (params.empty()) return;
  at::_foreach_add_(steps, 1);  // one kernel for the group's step counts
  fused_kernel_(params, grads, exp_avgs, exp_avg_sqs, steps, o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()),
                o.weight_decay(), o.eps());
}

}  // namespace milabench
