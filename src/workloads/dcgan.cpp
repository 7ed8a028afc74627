// dcgan: the original's milarun.models.dcgan:main — pytorch/examples' DCGAN
// (64x64 generator and discriminator, BCE, Adam lr 2e-4 beta1 0.5 for both)
// on fake_imagenet's train split: Resize(64) + CenterCrop(64) + ToTensor +
// Normalize(0.5, 0.5) on full-resolution decodes, shuffled. Each timed block
// (as the original's dataloop) fetches a batch and does: D on the real batch,
// D on G(z) detached, D step; G through D, G step; with the original's six
// host reads every step (D(x), D(G(z)) before and after D's step, errD_real,
// errD_fake, errG), recorded as metrics; device sync at slice ends. Counts
// --batch-size per step (the original's real_batch_size on one device), also
// for an epoch's short last batch.
#include "models/dcgan.hpp"

#include <torch/torch.h>

#include <stdexcept>

#include "data/center_crop_transforms.hpp"
#include "training/image_input.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

constexpr int64_t kDcganChannels = 3;
constexpr int kDcganSide = 64;  // the networks' fixed image side

template <typename Net>
void maybe_load(Net& net, const std::string& path, const char* flag) {
  if (path.empty()) return;
  try {
    torch::load(net, path);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(flag) + " " + path +
                             ": cannot load (expects a file saved by this C++ model with torch::save): " + e.what());
  }
}

class DcganWorkload : public Workload {
 public:
  DcganWorkload() {
    input_.batch_size = 64;
    input_.image_size = kDcganSide;
  }

  void add_options(CLI::App& app) override {
    add_image_input_options(app, input_);
    app.add_option("--nz", nz_, "size of the latent z vector")->capture_default_str();
    app.add_option("--ngf", ngf_, "generator feature width")->capture_default_str();
    app.add_option("--ndf", ndf_, "discriminator feature width")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate (both networks)")->capture_default_str();
    app.add_option("--beta1", beta1_, "Adam beta1")->capture_default_str();
    app.add_option("--ngpu", ngpu_, "GPUs per process (only 1: milarun runs one process per device)");
    app.add_option("--saved-netG", saved_g_, "generator weights to start from (torch::save file)");
    app.add_option("--saved-netD", saved_d_, "discriminator weights to start from (torch::save file)");
  }

  void run(Session& s) override {
    if (input_.image_size != kDcganSide)
      throw std::invalid_argument("dcgan: --image-size must be 64 (the networks are 64x64), got " +
                                  std::to_string(input_.image_size));
    if (ngpu_ > 1)
      throw std::invalid_argument("dcgan: --ngpu " + std::to_string(ngpu_) +
                                  " is not supported; milarun runs one process per device");
    if (nz_ < 1 || ngf_ < 1 || ndf_ < 1) throw std::invalid_argument("dcgan: --nz, --ngf and --ndf must be >= 1");
    const torch::Device dev = s.device();
    DcganGenerator g(nz_, ngf_, kDcganChannels);
    DcganDiscriminator d(kDcganChannels, ndf_);
    maybe_load(g, saved_g_, "--saved-netG");
    maybe_load(d, saved_d_, "--saved-netD");
    g->to(dev);
    d->to(dev);
    int64_t params = 0;
    for (const auto& p : g->parameters()) params += p.numel();
    s.set_metric("generator_parameters", params);
    for (const auto& p : d->parameters()) params += p.numel();
    s.set_model_parameters(params);

    ResizeCenterCrop::Options t;
    t.size = kDcganSide;  // mean = std = 0.5: images in [-1, 1] like the generator's tanh
    t.decode = input_.decode();
    ImageInput input(s, input_, std::make_shared<ResizeCenterCrop>(t), /*shuffle=*/true);
    if (dev.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // as the original

    auto adam = torch::optim::AdamOptions(lr_).betas({beta1_, 0.999});
    torch::optim::Adam opt_d(d->parameters(), adam), opt_g(g->parameters(), adam);
    g->train();
    d->train();
    while (true) {
      s.begin();
      torch::Tensor real = input.next().first;
      const int64_t n = real.size(0);
      auto label = torch::ones({n}, real.options());

      d->zero_grad();  // (1) D: maximise log D(x) + log(1 - D(G(z)))
      auto output = d->forward(real);
      auto err_d_real = torch::binary_cross_entropy(output, label);
      err_d_real.backward();
      s.set_metric("D_x", output.mean().item<double>());
      auto fake = g->forward(torch::randn({n, nz_, 1, 1}, real.options()));
      label.fill_(0.0);
      output = d->forward(fake.detach());
      auto err_d_fake = torch::binary_cross_entropy(output, label);
      err_d_fake.backward();
      s.set_metric("D_G_z1", output.mean().item<double>());
      opt_d.step();

      g->zero_grad();  // (2) G: maximise log D(G(z))
      label.fill_(1.0);
      output = d->forward(fake);
      auto err_g = torch::binary_cross_entropy(output, label);
      err_g.backward();
      s.set_metric("D_G_z2", output.mean().item<double>());
      opt_g.step();
      const double e_real = err_d_real.item<double>(), e_fake = err_d_fake.item<double>(), e_g = err_g.item<double>();
      s.set_metric("errD_real", e_real);
      s.set_metric("errD_fake", e_fake);
      s.set_metric("errG", e_g);
      s.set_metric("loss", e_real + e_fake + e_g);  // ours: the three summed, from the values read
      if (!s.step(input_.batch_size)) return;
    }
  }

 private:
  ImageInputOptions input_;
  int64_t nz_ = 100, ngf_ = 64, ndf_ = 64, ngpu_ = 1;
  double lr_ = 0.0002, beta1_ = 0.5;
  std::string saved_g_, saved_d_;
};

}  // namespace

std::unique_ptr<Workload> make_dcgan() { return std::make_unique<DcganWorkload>(); }

}  // namespace milabench
