// toy_lstm: milabench's sine_wave.py (two LSTMCells and a Linear on generated
// sine waves). As the original: plain SGD lr 0.01, one forward/backward and
// one update per step, the loss read back every step (loss.item()), and each
// step counts --samples (100), although the first 3 series are held out.
#include <torch/torch.h>

#include <stdexcept>

#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

struct SequenceImpl : torch::nn::Module {
  static constexpr int64_t kHidden = 51;
  torch::nn::LSTMCell lstm1{nullptr}, lstm2{nullptr};
  torch::nn::Linear linear{nullptr};

  SequenceImpl() {
    lstm1 = register_module("lstm1", torch::nn::LSTMCell(1, kHidden));
    lstm2 = register_module("lstm2", torch::nn::LSTMCell(kHidden, kHidden));
    linear = register_module("linear", torch::nn::Linear(kHidden, 1));
  }

  // input [B, T] -> predictions [B, T] (one step ahead).
  torch::Tensor forward(const torch::Tensor& input) {
    // As the original: four zero states made on the host, then moved.
    auto zero = [&] { return torch::zeros({input.size(0), kHidden}).to(input.device(), input.scalar_type()); };
    auto h1 = zero(), c1 = zero(), h2 = zero(), c2 = zero();
    std::vector<torch::Tensor> outputs;
    outputs.reserve(input.size(1));
    for (const auto& x : input.split(1, 1)) {
      std::tie(h1, c1) = lstm1(x, std::make_tuple(h1, c1));
      std::tie(h2, c2) = lstm2(h1, std::make_tuple(h2, c2));
      outputs.push_back(linear(h2));
    }
    return torch::stack(outputs, 1).squeeze(2);
  }
};
TORCH_MODULE(Sequence);

class SineWave : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dtype", dtype_, "float32 or float64")->capture_default_str();
    app.add_option("--samples", samples_, "number of sine series (first 3 held out)")->capture_default_str();
  }

  void run(Session& s) override {
    torch::ScalarType dtype;
    if (dtype_ == "float32")
      dtype = torch::kFloat32;
    else if (dtype_ == "float64")
      dtype = torch::kFloat64;
    else
      throw std::invalid_argument("--dtype must be float32 or float64, got " + dtype_);
    if (samples_ < 4) throw std::invalid_argument("--samples must be >= 4 (3 series are held out)");

    // generate_wave_data(20, 1000, samples): x = arange(L) + randint(-4T, 4T)
    // per series, sin(x / T) in float64 on the host, then cast and moved.
    constexpr int64_t T = 20, L = 1000;
    torch::Tensor input, target;
    {
      torch::NoGradGuard ng;
      auto shift = torch::randint(-4 * T, 4 * T, {samples_, 1}, torch::kLong);
      auto data = torch::sin((torch::arange(L, torch::kLong).unsqueeze(0) + shift).to(torch::kDouble) / double(T));
      input = data.slice(0, 3).slice(1, 0, L - 1).to(s.device(), dtype).contiguous();
      target = data.slice(0, 3).slice(1, 1).to(s.device(), dtype).contiguous();
    }

    Sequence seq;
    seq->to(s.device(), dtype);
    s.set_model(*seq);
    s.set_dataset({{"name", "sine_wave"}, {"synthetic", true}, {"series", samples_}, {"length", L}});
    torch::optim::SGD opt(seq->parameters(), torch::optim::SGDOptions(kLearningRate));
    seq->train();
    int64_t updates = 0;
    while (true) {
      s.begin();
      opt.zero_grad();
      auto loss = torch::mse_loss(seq->forward(input), target);
      loss.backward();
      loss.item<double>();  // the original's it.log(loss=loss.item()): a host read every step
      opt.step();
      ++updates;
      if (!s.step(samples_, loss)) break;
    }
    s.set_metric("updates", updates);
  }

 private:
  static constexpr double kLearningRate = 0.01;  // hard-coded in the original:
  std::string dtype_ = "float32";
  int64_t samples_ = 100;
};

}  // namespace

std::unique_ptr<Workload> make_sine_wave() { return std::make_unique<SineWave>(); }

}  // namespace milabench
