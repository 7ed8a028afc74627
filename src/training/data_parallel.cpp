#include "training/data_parallel.hpp"

// Gloo only where libtorch ships its headers (cmake/TorchLayout.cmake):
// PyTorch's pip wheel has Gloo inside libtorch but no gloo/*.h.
#include "generated/torch_layout.h"
#ifdef MILABENCH_HAVE_GLOO
#ifndef USE_C10D_GLOO  // TorchConfig defines it for a libtorch built with Gloo (Debian's is)
#define USE_C10D_GLOO 1
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/cuda/nccl.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "compat/torch_compat.hpp"

namespace milabench {

using Work = decltype(std::declval<compat::CollectiveBackend&>().allreduce(std::declval<std::vector<at::Tensor>&>()));

struct DataParallelGroup::Bucket {
  torch::Tensor flat;            // gradients / world size (+ the vote slot in the last bucket)
  std::vector<int64_t> params;   // indices into Impl::params
  std::vector<int64_t> offsets;  // of each parameter's slice in `flat`
  int64_t pending = 0;           // gradients still to come this step
  Work work;
};

struct DataParallelGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<compat::CollectiveBackend> group;  // ProcessGroupGloo or ProcessGroupNCCL
  std::function<void()> shutdown;                       // the group's orderly end (NCCL), before the store goes
  std::vector<torch::Tensor> params;
  std::vector<unsigned> hooks;  // hook handle of each parameter
  std::vector<Bucket> buckets;
  torch::Tensor scale;  // 0-dim 1 / world size
  std::mutex mu;        // hooks run on the autograd engine's threads
  size_t next_launch = 0;
  int64_t launched_in_hooks = 0;
  bool in_backward = false;
  float vote = 0;
};

namespace {

bool is_loopback(const std::string& addr) { return addr == "localhost" || addr.rfind("127.", 0) == 0; }

#ifdef MILABENCH_HAVE_GLOO
c10::intrusive_ptr<compat::CollectiveBackend> make_gloo(const c10::intrusive_ptr<c10d::Store>& store,
                                                        const Rendezvous& where, std::chrono::milliseconds timeout) {
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"))
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
  else if (is_loopback(where.master_addr))
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  else
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, where.rank, where.world_size, opts);
}
#endif

#ifdef USE_C10D_NCCL
// "2.28.9" from torch::cuda::nccl::version(): packed major<<32|minor<<16|patch
// since torch 1.12, major*1000+minor*100+patch before.
std::string torch_nccl_version() {
  const std::uint64_t v = torch::cuda::nccl::version();
  if (v >= (std::uint64_t(1) << 32)) return fmt::format("{}.{}.{}", v >> 32, (v >> 16) & 0xffff, v & 0xffff);
  return fmt::format("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100);
}

std::string header_nccl_version() { return fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH); }

// ProcessGroupNCCL::Options embeds ncclConfig_t, whose size changes with the
// NCCL version: built against another nccl.h than libtorch's, the group's
// constructor writes past the object this file allocated (a segmentation
// fault later, far from the cause). Refuse instead.
void require_matching_nccl() {
  const std::string torch_v = torch_nccl_version(), ours = header_nccl_version();
  const auto major_minor = [](const std::string& v) { return v.substr(0, v.rfind('.')); };
  if (major_minor(torch_v) != major_minor(ours))
    throw std::runtime_error(fmt::format(
        "--dist-backend nccl: libtorch was built with NCCL {} but this program with nccl.h {}; c10d's NCCL "
        "classes differ between them. Rebuild with -DMILABENCH_NCCL_INCLUDE_DIR=<the include folder of NCCL {}> "
        "(PyTorch's: site-packages/nvidia/nccl/include; docs/gpu.md)",
        torch_v, ours, torch_v));
}

c10::intrusive_ptr<compat::CollectiveBackend> make_nccl(const c10::intrusive_ptr<c10d::Store>& store,
                                                        const Rendezvous& where, std::chrono::milliseconds timeout,
                                                        torch::Device device, std::function<void()>& shutdown) {
  require_matching_nccl();
  if (device.is_cuda()) c10::cuda::set_device(device.has_index() ? device.index() : 0);
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, where.rank, where.world_size, opts);
  shutdown = [raw = pg.get()] { compat::shutdown_process_group(*raw); };
  return pg;
}
#endif

}  // namespace

bool DataParallelGroup::backend_available(const std::string& backend) {
#ifdef MILABENCH_HAVE_GLOO
  if (backend == "gloo") return true;
#endif
  return backend == "nccl" && compat::built_with_nccl();
}

std::string default_backend(const torch::Device& device, const std::string& requested) {
  if (!requested.empty()) return requested;
  return device.is_cuda() ? "nccl" : "gloo";
}

DataParallelGroup::DataParallelGroup(const Rendezvous& where, const std::string& backend,
                                     std::chrono::milliseconds timeout, bool group_when_alone, torch::Device device)
    : where_(where), backend_(backend), impl_(std::make_unique<Impl>()) {
  if (backend != "gloo" && backend != "nccl")
    throw std::runtime_error(fmt::format("--dist-backend {}: unknown backend; use gloo (CPU) or nccl (CUDA)", backend));
  const bool needs_group = where.world_size > 1 || group_when_alone;
  if (needs_group && !backend_available(backend))
    throw std::runtime_error(
        backend == "nccl"
            ? "--dist-backend nccl: this build has no NCCL (rebuild against a CUDA libtorch with "
              "-DUSE_C10D_NCCL) — use --dist-backend gloo"
            : "--dist-backend gloo: this build has no Gloo (its libtorch, e.g. PyTorch's pip wheel, ships no Gloo "
              "headers) — use --dist-backend nccl on GPUs, or build against a libtorch with Gloo (docs/gpu.md)");
  if (!needs_group) return;
  const std::string at = fmt::format("{}:{}", where.master_addr, where.master_port);
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(where.master_port);
    so.isServer = where.rank == 0;
    so.numWorkers = static_cast<std::size_t>(where.world_size);
    so.waitWorkers = true;
    so.timeout = timeout;
    impl_->store = c10::make_intrusive<c10d::TCPStore>(where.master_addr, so);
#ifdef MILABENCH_HAVE_GLOO
    if (backend == "gloo") impl_->group = make_gloo(impl_->store, where, timeout);
#endif
#ifdef USE_C10D_NCCL
    if (backend == "nccl") impl_->group = make_nccl(impl_->store, where, timeout, device, impl_->shutdown);
#endif
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw std::runtime_error(fmt::format("data-parallel rendezvous at {} ({}, {}) failed: {}", at, describe(where),
                                         backend, what.substr(0, what.find('\n'))));
  }
  (void)device;
}

DataParallelGroup::~DataParallelGroup() {
  for (size_t i = 0; i < impl_->hooks.size(); ++i) impl_->params[i].remove_hook(impl_->hooks[i]);
  impl_->buckets.clear();  // pending works first
  try {
    if (impl_->shutdown) impl_->shutdown();
  } catch (...) {  // a failed run is already being reported; the group goes anyway
  }
  impl_->group.reset();
  impl_->store.reset();
}

bool DataParallelGroup::grouped() const { return static_cast<bool>(impl_->group); }

std::vector<std::vector<int64_t>> ddp15_bucket_assignment(const std::vector<int64_t>& bytes, int64_t first_bucket_bytes,
                                                          int64_t bucket_bytes) {
  std::vector<std::vector<int64_t>> buckets;
  std::vector<int64_t> open;
  int64_t filled = 0, cap = first_bucket_bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    open.push_back(static_cast<int64_t>(i));
    filled += bytes[i];
    if (filled >= cap) {  // closes once it holds at least its limit; then the next limit
      buckets.push_back(std::move(open));
      open.clear();
      filled = 0;
      cap = bucket_bytes;
    }
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  // One dtype and device: the buckets are already sorted by their first index.
  std::reverse(buckets.begin(), buckets.end());
  return buckets;
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
  std::vector<int64_t> bytes;
  for (const auto& p : params) bytes.push_back(p.numel() * int64_t(sizeof(float)));
  for (auto& indices : ddp15_bucket_assignment(bytes, first_bucket_bytes, bucket_bytes)) {
    Bucket b;
    int64_t elems = 0;
    for (int64_t k : indices) b.offsets.push_back(elems), elems += params[k].numel();
    b.params = std::move(indices);
    m.buckets.push_back(std::move(b));
  }
  if (m.buckets.empty()) m.buckets.emplace_back();  // the vote alone
  for (size_t i = 0; i < m.buckets.size(); ++i) {
    Bucket& b = m.buckets[i];
    int64_t elems = b.params.empty() ? 0 : b.offsets.back() + params[b.params.back()].numel();
    if (i + 1 == m.buckets.size()) ++elems;  // the vote slot
    b.flat = torch::zeros({elems}, options);
  }
  m.scale = torch::full({}, 1.0 / where_.world_size, options);
  m.hooks.resize(params.size());
  for (size_t i = 0; i < m.buckets.size(); ++i)
    for (size_t j = 0; j < m.buckets[i].params.size(); ++j) {
      const int64_t k = m.buckets[i].params[j];
      const int64_t offset = m.buckets[i].offsets[j];
      m.hooks[k] = m.params[k].register_hook([this, i, offset](const torch::Tensor& grad) {
        on_gradient(i, offset, grad);
        return torch::Tensor();  // the gradient itself is left as it is
      });
    }
  zero_grad();
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

void DataParallelGroup::zero_grad(float vote) {
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
  m.vote = vote;
  m.buckets.back().flat[-1].fill_(vote);  // a device-side fill: no host read
  m.in_backward = true;
  launch_ready_buckets();  // a bucket without parameters (none here but the vote slot alone)
}

void DataParallelGroup::finish_gradients() {
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
}

float DataParallelGroup::read_vote() {
  Impl& m = *impl_;
  if (!m.group) return m.vote;
  return m.buckets.back().flat[-1].item<float>();
}

std::vector<std::vector<int64_t>> DataParallelGroup::bucket_params() const {
  std::vector<std::vector<int64_t>> out;
  for (const auto& b : impl_->buckets) out.push_back(b.params);
  return out;
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

nlohmann::json DataParallelGroup::describe_backend() const {
  nlohmann::json out = {{"backend", backend_}};
#ifdef USE_C10D_NCCL
  if (backend_ == "nccl") {
    out["nccl_header"] = header_nccl_version();
    out["nccl_torch"] = torch_nccl_version();
  }
#endif
  return out;
}

}  // namespace milabench
