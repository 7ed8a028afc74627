// vae: PyTorch's VAE example on MNIST (BCE + KLD, Adam). Counts samples.
// MNIST must already be under DATAROOT (read_mnist throws with the command
// that creates it); this workload never generates data.
#include <torch/torch.h>

#include <stdexcept>

#include "data/mnist.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

struct VAEImpl : torch::nn::Module {
  torch::nn::Linear fc1{nullptr}, fc21{nullptr}, fc22{nullptr}, fc3{nullptr}, fc4{nullptr};
  VAEImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 400));
    fc21 = register_module("fc21", torch::nn::Linear(400, 20));
    fc22 = register_module("fc22", torch::nn::Linear(400, 20));
    fc3 = register_module("fc3", torch::nn::Linear(20, 400));
    fc4 = register_module("fc4", torch::nn::Linear(400, 784));
  }
  // x [B, 784] in [0, 1] -> (reconstruction [B, 784], mu [B, 20], logvar [B, 20]).
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {
    auto h1 = torch::relu(fc1(x));
    auto mu = fc21(h1), logvar = fc22(h1);
    auto z = is_training() ? mu + torch::randn_like(mu) * torch::exp(0.5 * logvar) : mu;
    auto recon = torch::sigmoid(fc4(torch::relu(fc3(z))));
    return {recon, mu, logvar};
  }
};
TORCH_MODULE(VAE);

class VaeWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--batch-size", batch_, "samples per step")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("--dataset", dataset_, "dataset (only mnist)")->capture_default_str();
  }

  void run(Session& s) override {
    if (batch_ < 1) throw std::invalid_argument("--batch-size must be >= 1");
    if (dataset_.find("mnist") == std::string::npos)
      throw std::invalid_argument("vae: --dataset must name mnist, got " + dataset_);
    MnistSplit train = read_mnist(s.dataroot(), true);
    s.set_dataset(mnist_provenance(s.dataroot()));
    auto images = train.images.view({-1, 784}).to(s.device()).to(torch::kFloat32).div_(255.0);
    const int64_t n = images.size(0);

    VAE model;
    model->to(s.device());
    s.set_model(*model);
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr_));
    model->train();
    while (true) {  // epochs, shuffled, last partial batch kept
      auto perm = torch::randperm(n, torch::TensorOptions().device(s.device()).dtype(torch::kLong));
      for (int64_t i = 0; i < n; i += batch_) {
        auto x = images.index_select(0, perm.slice(0, i, std::min(n, i + batch_)));
        opt.zero_grad();
        auto [recon, mu, logvar] = model->forward(x);
        auto bce = torch::binary_cross_entropy(recon, x, {}, at::Reduction::Sum);
        auto kld = -0.5 * torch::sum(1 + logvar - mu.pow(2) - logvar.exp());
        auto loss = bce + kld;
        loss.backward();
        opt.step();
        if (!s.step(x.size(0), loss)) return;
      }
    }
  }

 private:
  int64_t batch_ = 128;
  double lr_ = 1e-3;
  std::string dataset_ = "milarun.datasets:mnist";
};

}  // namespace

std::unique_ptr<Workload> make_vae() { return std::make_unique<VaeWorkload>(); }

}  // namespace milabench
