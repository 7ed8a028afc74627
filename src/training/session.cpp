#include "training/session.hpp"

#include <cmath>
#include <stdexcept>

#include "measure/rate_meter.hpp"
#include "training/nonfinite_loss.hpp"

namespace milabench {

Session::Session(RateMeter& meter, torch::Device device, std::string dataroot, int workers, int64_t seed)
    : meter_(meter), device_(device), dataroot_(std::move(dataroot)), workers_(workers), seed_(seed) {}

void Session::begin() { meter_.begin(); }

void Session::set_slice_sync(bool on) { meter_.set_sync_enabled(on); }

bool Session::step(int64_t n, const torch::Tensor& loss) {
  bool closed = meter_.step(n);
  std::optional<double> read;
  if (closed && loss.defined()) {
    double value = loss.detach().to(torch::kCPU, torch::kDouble).item<double>();
    if (!std::isfinite(value))
      throw NonFiniteLoss("non-finite loss (" + std::to_string(value) + ") after " + std::to_string(meter_.count()) +
                          " examples");
    outputs_.metrics["loss"] = value;
    read = value;
  }
  if (closed && on_slice_) on_slice_(meter_.count(), meter_.last_rate(), read);
  if (closed) meter_.exclude_since_step();  // the read and the progress line are not timed
  return !meter_.done();
}

StopSchedule Session::stop_schedule(int64_t count_per_step) const {
  const MeterOptions& o = meter_.options();
  return StopSchedule(o.max_count, count_per_step, o.until_stable);
}

double Session::steps_per_slice(int64_t count_per_step) const {
  if (meter_.rates().empty() || count_per_step < 1) return 1.0;
  return meter_.last_rate() * meter_.options().sample_duration / static_cast<double>(count_per_step);
}

nlohmann::json Session::finish_meter() {
  meter_.finish();
  return meter_.to_json();
}

void Session::set_distributed(const nlohmann::json& info, bool counted) {
  outputs_.distributed = info;
  outputs_.sub_job = !counted;
}

int64_t count_parameters(const torch::nn::Module& model) {
  int64_t total = 0;
  for (const auto& p : model.parameters()) total += p.numel();
  return total;
}

void Session::set_model(const torch::nn::Module& model) { set_model_parameters(count_parameters(model)); }

void Session::set_model_parameters(int64_t count) { outputs_.model_parameters = count; }

void Session::set_dataset(const nlohmann::json& provenance) { outputs_.dataset = provenance; }

void Session::set_metric(const std::string& key, const nlohmann::json& value) { outputs_.metrics[key] = value; }

}  // namespace milabench
