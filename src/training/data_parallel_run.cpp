#include "training/data_parallel_run.hpp"

#include <fmt/format.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "training/session.hpp"

namespace milabench {

void RankFlags::add_options(CLI::App& app) {
  app.add_option("--rank", rank, "rank (default: RANK or SLURM_PROCID)");
  app.add_option("--world-size", world_size, "ranks (default: WORLD_SIZE or SLURM_NTASKS, else 1)");
  app.add_option("--dist-backend", backend, "gloo or nccl (default: nccl on CUDA, gloo on CPU)");
  app.add_option("--dist-url", dist_url, "tcp://HOST:PORT of rank 0 (default: MASTER_ADDR/MASTER_PORT)");
  app.add_option("--dist-timeout", timeout_s, "seconds to wait for the other ranks (ours)")->capture_default_str();
}

Rendezvous RankFlags::resolve(const std::string& workload) const {
  Rendezvous r = rendezvous_from_env();
  if ((rank >= 0) != (world_size >= 0))
    throw std::runtime_error(workload + ": give --rank and --world-size together (or neither, to use the environment)");
  if (world_size >= 0) {
    if (world_size < 1 || rank >= world_size)
      throw std::runtime_error(fmt::format("{}: --rank {} is not in [0, --world-size {})", workload, rank, world_size));
    r.rank = rank, r.world_size = world_size, r.local_rank = rank, r.source = "flags";
  }
  if (!dist_url.empty()) {
    const std::string scheme = "tcp://";
    auto colon = dist_url.rfind(':');
    if (dist_url.rfind(scheme, 0) != 0 || colon == std::string::npos || colon < scheme.size())
      throw std::runtime_error(fmt::format("{}: --dist-url \"{}\" is not tcp://HOST:PORT", workload, dist_url));
    r.master_addr = dist_url.substr(scheme.size(), colon - scheme.size());
    try {
      r.master_port = std::stoi(dist_url.substr(colon + 1));
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("{}: --dist-url \"{}\" has no numeric port", workload, dist_url));
    }
  }
  return r;
}

namespace {
torch::Device rank_device(torch::Device dev, const Rendezvous& where, const std::optional<int>& device_id) {
  if (!dev.is_cuda()) return dev;
  const int count = static_cast<int>(torch::cuda::device_count());
  const int index = device_id ? *device_id : where.local_rank;
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(count > 1 ? index % count : 0));
}
}  // namespace

DataParallelRun::DataParallelRun(Session& s, const RankFlags& flags, const std::string& workload,
                                 const DataParallelOptions& options)
    : s_(s),
      where_(flags.resolve(workload)),
      backend_(default_backend(s.device(), flags.backend)),
      device_(rank_device(s.device(), where_, options.device_id)) {
  group_ = std::make_unique<DataParallelGroup>(where_, backend_,
                                               std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_s * 1000)),
                                               options.group_when_alone, device_);
  active_ = group_->grouped() || options.attach_when_alone;
}

DataParallelRun::~DataParallelRun() = default;

void DataParallelRun::seed_rank_data(int64_t seed) const {
  if (where_.world_size > 1) torch::manual_seed(static_cast<uint64_t>(seed + where_.rank));
}

void DataParallelRun::attach(const std::vector<torch::Tensor>& params, int64_t count_per_step) {
  params_ = params;
  count_per_step_ = std::max<int64_t>(1, count_per_step);
  if (active_) group_->attach(params);
  schedule_.emplace(s_.stop_schedule(count_per_step_));
}

void DataParallelRun::before_backward() {
  ++step_;
  check_ = grouped() && schedule_->is_check(step_);
  if (active_) {
    group_->zero_grad(check_ ? StopSchedule::vote(where_.rank == 0, done_, s_.steps_per_slice(count_per_step_)) : 0.0f);
    return;
  }
  for (auto& p : params_) p.mutable_grad() = torch::Tensor();  // zero_grad(set_to_none=True)
}

bool DataParallelRun::after_backward() {
  if (!active_) return false;
  group_->finish_gradients();
  if (!check_) return false;
  ++vote_reads_;
  return schedule_->leave(group_->read_vote(), step_);
}

bool DataParallelRun::go_on(bool meter_goes_on) {
  done_ = !meter_goes_on;
  return meter_goes_on || grouped();
}

void DataParallelRun::finish(bool record_alone) {
  s_.set_metric("world_size", where_.world_size);
  if (active_) {
    s_.set_metric("gradient_buckets", group_->buckets());
    s_.set_metric("stop_vote_reads", vote_reads_);
    s_.set_metric("buckets_overlapped_with_backward", group_->launched_during_backward());
  }
  if (!record_alone && where_.world_size == 1) return;
  nlohmann::json mine = s_.finish_meter();
  std::vector<std::string> all = group_->gather_to_rank0(mine.dump());
  nlohmann::json info = {{"rank", where_.rank},
                         {"world_size", where_.world_size},
                         {"local_rank", where_.local_rank},
                         {"backend", backend_},
                         {"collectives", group_->describe_backend()},
                         {"rendezvous", where_.source},
                         {"master", fmt::format("{}:{}", where_.master_addr, where_.master_port)}};
  s_.set_distributed(info, where_.rank == 0);
  if (where_.rank != 0) return;
  nlohmann::json timings = nlohmann::json::object();
  for (std::size_t r = 0; r < all.size(); ++r) timings[fmt::format("train_{}", r)] = nlohmann::json::parse(all[r]);
  s_.set_timings(timings);
}

}  // namespace milabench
