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
#include <stdexcept>

#include "compat/torch_compat.hpp"

namespace milabench {

struct DataParallelGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<compat::CollectiveBackend> group;  // ProcessGroupGloo or ProcessGroupNCCL
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

DataParallelGroup::~DataParallelGroup() = default;

void DataParallelGroup::attach(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard no_grad;
  int64_t total = 0;
  for (const auto& p : params) total += p.numel();
  auto device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
  flat_ = torch::zeros({total + 1}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  if (impl_->group) {  // rank 0's initial weights everywhere, as DDP does
    auto values = flat_.narrow(0, 0, total);
    int64_t off = 0;
    for (const auto& p : params) values.narrow(0, off, p.numel()).copy_(p.reshape(-1)), off += p.numel();
    std::vector<at::Tensor> buf = {flat_};
    impl_->group->broadcast(buf)->wait();
    off = 0;
    for (const auto& p : params) p.copy_(values.narrow(0, off, p.numel()).view_as(p)), off += p.numel();
    flat_.zero_();
  }
  int64_t off = 0;
  for (auto p : params) {
    p.mutable_grad() = flat_.narrow(0, off, p.numel()).view_as(p);
    off += p.numel();
  }
}

void DataParallelGroup::zero_grad() {
  if (flat_.defined()) flat_.zero_();
}

bool DataParallelGroup::average_gradients(bool stop) {
  if (!impl_->group) return stop;
  flat_[-1].fill_(stop ? 1.0 : 0.0);
  std::vector<at::Tensor> buf = {flat_};
  impl_->group->allreduce(buf)->wait();
  bool any_stop = flat_[-1].item<float>() > 0.5f;
  flat_.div_(where_.world_size);
  return any_stop;
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
