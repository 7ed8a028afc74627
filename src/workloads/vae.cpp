// vae: milabench's vae.py on MNIST (BCE + KLD, Adam 1e-3). As the original's
// DataLoader(shuffle=True): the train split stays on the host, each epoch is a
// fresh random permutation, each batch (images scaled to [0, 1] as ToTensor,
// labels collated too) is made on the host and copied to the device (pinned
// on CUDA, as pin_memory=True), the last short batch of an epoch is kept and
// counts its real size (len(data)); the loss is read back every step.
// MNIST must already be under DATAROOT (read_mnist throws with the command
// that creates it); this workload never generates data.
#include <torch/torch.h>

#include <stdexcept>

#include "data/mnist.hpp"
#include "training/session.hpp"
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
    auto sd = torch::exp(0.5 * logvar);
    auto z = torch::randn_like(sd).mul(sd).add_(mu);  // reparameterize, in train and eval alike
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
    const int64_t n = train.images.size(0);
    const bool pin = s.device().is_cuda();

    VAE model;
    model->to(s.device());
    s.set_model(*model);
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr_));
    model->train();
    while (true) {                                   // epochs
      auto perm = torch::randperm(n, torch::kLong);  // RandomSampler
      for (int64_t i = 0; i < n; i += batch_) {
        s.begin();  // the original's timed block opens before next(loader)
        auto idx = perm.slice(0, i, std::min(n, i + batch_));
        auto data = train.images.index_select(0, idx).to(torch::kFloat32).div_(255.0).unsqueeze(1);
        auto target = train.labels.index_select(0, idx);
        if (pin) data = data.pin_memory(), target = target.pin_memory();
        auto x = data.to(s.device());
        opt.zero_grad();
        auto [recon, mu, logvar] = model->forward(x.view({-1, 784}));
        auto bce = torch::binary_cross_entropy(recon, x.view({-1, 784}), {}, at::Reduction::Sum);
        auto kld = -0.5 * torch::sum(1 + logvar - mu.pow(2) - logvar.exp());
        auto loss = bce + kld;
        loss.backward();
        loss.item<double>();  // the original's it.log(loss=loss.item()): a host read every step
        opt.step();
        if (!s.step(data.size(0), loss)) return;
      }
    }
  }

 private:
  int64_t batch_ = 256;  // the original's default (the profiles pass 128)
  double lr_ = 1e-3;
  std::string dataset_ = "milarun.datasets:mnist";
};

}  // namespace

std::unique_ptr<Workload> make_vae() { return std::make_unique<VaeWorkload>(); }

}  // namespace milabench
