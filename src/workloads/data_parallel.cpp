#include "workloads/data_parallel.hpp"

#ifndef USE_C10D_GLOO  // TorchConfig defines it for a libtorch built with Gloo (Debian's is)
#define USE_C10D_GLOO 1
#endif

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "compat/torch_compat.hpp"

namespace milabench {

using Work = decltype(std::declval<compat::CollectiveBackend&>().allreduce(std::declval<std::vector<at::Tensor>&>()));

struct DataParallelGroup::Bucket {
  torch::Tensor flat;            // gradients / world size (+ the stop slot in the last bucket)
  std::vector<size_t> params;    // indices into Impl::params
  std::vector<int64_t> offsets;  // of each parameter's slice in `flat`
  int64_t pending = 0;           // gradients still to come this step
  Work work;
};

struct DataParallelGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<compat::CollectiveBackend> group;  // ProcessGroupGloo or ProcessGroupNCCL
  std::vector<torch::Tensor> params;
  std::vector<unsigned> hooks;  // hook handle of each parameter
  std::vector<Bucket> buckets;
  torch::Tensor scale;  // 0-dim 1 / world size
  std::mutex mu;        // hooks run on the autograd engine's threads
  size_t next_launch = 0;
  int64_t launched_in_hooks = 0;
  bool in_backward = false, stop = false;
};

namespace {

bool is_loopback(const std::string& addr) { return addr == "localhost" || addr.rfind("127.", 0) == 0; }

std::shared_ptr<::gloo::transport::Device> gloo_device(const std::string& master) {
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"))
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  if (is_loopback(master)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

std::string default_backend(const torch::Device& device, const std::string& requested) {
  if (!requested.empty()) return requested;
  return device.is_cuda() ? "nccl" : "gloo";
}

DataParallelGroup::DataParallelGroup(const Rendezvous& where, const std::string& backend,
                                     std::chrono::milliseconds timeout, bool group_when_alone)
    : where_(where), backend_(backend), impl_(std::make_unique<Impl>()) {
  if (backend != "gloo" && backend != "nccl")
    throw std::runtime_error(fmt::format("--dist-backend {}: unknown backend; use gloo (CPU) or nccl (CUDA)", backend));
#ifndef USE_C10D_NCCL
  if (backend == "nccl" && (where.world_size > 1 || group_when_alone))
    throw std::runtime_error(
        "--dist-backend nccl: this build has no NCCL (rebuild against a CUDA libtorch with "
        "-DUSE_C10D_NCCL) — use --dist-backend gloo");
#endif
  if (where.world_size == 1 && !group_when_alone) return;
  const std::string at = fmt::format("{}:{}", where.master_addr, where.master_port);
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(where.master_port);
    so.isServer = where.rank == 0;
    so.numWorkers = static_cast<std::size_t>(where.world_size);
    so.waitWorkers = true;
    so.timeout = timeout;
    impl_->store = c10::make_intrusive<c10d::TCPStore>(where.master_addr, so);
    if (backend == "gloo") {
      auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
      opts->devices.push_back(gloo_device(where.master_addr));
      impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, where.rank, where.world_size, opts);
    } else {
#ifdef USE_C10D_NCCL
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = timeout;
      impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, where.rank, where.world_size, opts);
#endif
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw std::runtime_error(fmt::format("data-parallel rendezvous at {} ({}, {}) failed: {}", at, describe(where),
                                         backend, what.substr(0, what.find('\n'))));
  }
}

DataParallelGroup::~DataParallelGroup() {
  for (size_t i = 0; i < impl_->hooks.size(); ++i) impl_->params[i].remove_hook(impl_->hooks[i]);
}

void DataParallelGroup::attach(const std::vector<torch::Tensor>& params, int64_t first_bucket_bytes,
                               int64_t bucket_bytes) {
  Impl& m = *impl_;
  if (!m.params.empty()) throw std::logic_error("DataParallelGroup::attach called twice");
  torch::NoGradGuard no_grad;
  m.params = params;
  const auto device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  if (m.group) {  // rank 0's initial weights everywhere, as DDP's constructor
    int64_t total = 0;
    for (const auto& p : params) total += p.numel();
    auto values = torch::empty({total}, options);
    int64_t off = 0;
    for (const auto& p : params) values.narrow(0, off, p.numel()).copy_(p.reshape(-1)), off += p.numel();
    std::vector<at::Tensor> buf = {values};
    m.group->broadcast(buf)->wait();
    off = 0;
    for (const auto& p : params) p.copy_(values.narrow(0, off, p.numel()).view_as(p)), off += p.numel();
  }
  // DDP's bucket assignment: reverse parameter order (backward's order), a
  // bucket closes once it holds at least its cap.
  int64_t cap = first_bucket_bytes, filled = 0;
  for (size_t k = params.size(); k-- > 0;) {
    if (m.buckets.empty() || filled >= cap) {
      if (!m.buckets.empty()) cap = bucket_bytes;
      m.buckets.emplace_back();
      filled = 0;
    }
    Bucket& b = m.buckets.back();
    b.params.push_back(k);
    b.offsets.push_back(filled / int64_t(sizeof(float)));
    filled += params[k].numel() * int64_t(sizeof(float));
  }
  if (m.buckets.empty()) m.buckets.emplace_back();  // the stop vote alone
  for (size_t i = 0; i < m.buckets.size(); ++i) {
    Bucket& b = m.buckets[i];
    int64_t elems = b.params.empty() ? 0 : b.offsets.back() + params[b.params.back()].numel();
    if (i + 1 == m.buckets.size()) ++elems;  // the stop slot
    b.flat = torch::zeros({elems}, options);
  }
  m.scale = torch::full({}, 1.0 / where_.world_size, options);
  m.hooks.resize(params.size());
  for (size_t i = 0; i < m.buckets.size(); ++i)
    for (size_t j = 0; j < m.buckets[i].params.size(); ++j) {
      const size_t k = m.buckets[i].params[j];
      const int64_t offset = m.buckets[i].offsets[j];
      m.hooks[k] = m.params[k].register_hook([this, i, offset](const torch::Tensor& grad) {
        on_gradient(i, offset, grad);
        return torch::Tensor();  // the gradient itself is left as it is
      });
    }
  zero_grad(false);
  m.in_backward = false;
}

void DataParallelGroup::on_gradient(size_t bucket, int64_t offset, const torch::Tensor& grad) {
  Impl& m = *impl_;
  Bucket& b = m.buckets[bucket];
  {
    torch::NoGradGuard no_grad;
    auto slice = b.flat.narrow(0, offset, grad.numel());
    at::mul_out(slice, grad.reshape({-1}), m.scale);  // DDP divides while copying in
  }
  std::lock_guard<std::mutex> lock(m.mu);
  if (--b.pending == 0) launch_ready_buckets();
}

void DataParallelGroup::launch_ready_buckets() {  // call with mu held
  Impl& m = *impl_;
  while (m.next_launch < m.buckets.size() && m.buckets[m.next_launch].pending == 0) {
    Bucket& b = m.buckets[m.next_launch++];
    if (m.group) {
      std::vector<at::Tensor> buf = {b.flat};
      b.work = m.group->allreduce(buf);
    }
    if (m.in_backward) ++m.launched_in_hooks;
  }
}

void DataParallelGroup::zero_grad(bool stop) {
  Impl& m = *impl_;
  if (m.buckets.empty()) throw std::logic_error("DataParallelGroup::zero_grad before attach");
  std::lock_guard<std::mutex> lock(m.mu);
  for (auto& p : m.params) p.mutable_grad().reset();
  for (auto& b : m.buckets) {
    b.pending = int64_t(b.params.size());
    b.work.reset();
  }
  m.next_launch = 0;
  m.launched_in_hooks = 0;
  m.stop = stop;
  m.buckets.back().flat[-1].fill_(stop ? 1.0 : 0.0);
  m.in_backward = true;
  launch_ready_buckets();  // a bucket without parameters (none here but the stop slot alone)
}

bool DataParallelGroup::finish_gradients() {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    m.in_backward = false;
    for (const auto& b : m.buckets)
      if (b.pending != 0) throw std::runtime_error("data-parallel: a parameter received no gradient in this backward");
  }
  for (auto& b : m.buckets) {
    if (b.work) b.work->wait();
    for (size_t j = 0; j < b.params.size(); ++j) {
      torch::Tensor& p = m.params[b.params[j]];
      p.mutable_grad() = b.flat.narrow(0, b.offsets[j], p.numel()).view_as(p);
    }
  }
  if (!m.group) return m.stop;
  return m.buckets.back().flat[-1].item<float>() > 0.5f;
}

int64_t DataParallelGroup::buckets() const { return int64_t(impl_->buckets.size()); }

int64_t DataParallelGroup::launched_during_backward() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->launched_in_hooks;
}

std::vector<std::string> DataParallelGroup::gather_to_rank0(const std::string& mine) {
  if (!impl_->store) return {mine};
  const std::string prefix = "milabench/gather/";
  impl_->store->set(prefix + std::to_string(rank()), std::vector<uint8_t>(mine.begin(), mine.end()));
  if (rank() != 0) return {};
  std::vector<std::string> all;
  for (int r = 0; r < world_size(); ++r) {
    auto bytes = impl_->store->get(prefix + std::to_string(r));
    all.emplace_back(bytes.begin(), bytes.end());
  }
  return all;
}

}  // namespace milabench
