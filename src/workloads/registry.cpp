// The one table of workloads in this build. Defaults for --max-count follow
// profiles/standard.json.
#include "workloads/workload.hpp"

namespace milabench {

std::unique_ptr<Workload> make_polynome();
std::unique_ptr<Workload> make_sine_wave();
std::unique_ptr<Workload> make_vae();
std::unique_ptr<Workload> make_cart_pole();
std::unique_ptr<Workload> make_translator();
std::unique_ptr<Workload> make_minigrid();
std::unique_ptr<Workload> make_atari();
std::unique_ptr<Workload> make_wlm();
std::unique_ptr<Workload> make_wlm_fp16();
std::unique_ptr<Workload> make_recom();
std::unique_ptr<Workload> make_loader();
std::unique_ptr<Workload> make_convnet();
std::unique_ptr<Workload> make_ssd();
std::unique_ptr<Workload> make_dcgan();
std::unique_ptr<Workload> make_reso();
std::unique_ptr<Workload> make_fast_style();
std::unique_ptr<Workload> make_scaling();
std::unique_ptr<Workload> make_gpt2();
std::unique_ptr<Workload> make_llama();
std::unique_ptr<Workload> make_vit();
std::unique_ptr<Workload> make_dit();

const std::vector<WorkloadInfo>& workload_registry() {
  static const std::vector<WorkloadInfo> table = {
      {"polynome", {"milarun.models.polynome:main"}, "samples", 20000000, make_polynome},
      {"sine_wave", {"milarun.models.sine_wave:main"}, "samples", 8000, make_sine_wave},
      {"vae", {"milarun.models.vae:main"}, "samples", 500000, make_vae},
      {"cart_pole", {"milarun.models.cart_pole:main"}, "steps", 100000, make_cart_pole},
      {"translator", {"milarun.models.rnn_translator:main"}, "sentences", 10000, make_translator},
      {"minigrid", {"milarun.models.minigrid:main"}, "frames", 50000, make_minigrid},
      // atari counts num-processes per PPO update (one rollout per environment), as the original.
      {"atari", {"milarun.models.atari:main"}, "env_rollouts", 1000, make_atari},
      {"wlm", {"milarun.models.wlm:main"}, "sequences", 50000, make_wlm},
      {"wlmfp16", {"milarun.models.wlm:main_fp16"}, "sequences", 100000, make_wlm_fp16},
      {"recom", {"milarun.models.recommendation:main"}, "samples", 1000000, make_recom},
      {"loader", {"milarun.models.loader:main"}, "images", 25000, make_loader},
      {"convnet", {"milarun.models.convnet:conv_simple"}, "images", 5000, make_convnet},
      {"ssd", {"milarun.models.ssd:main"}, "images", 2500, make_ssd},
      {"dcgan", {"milarun.models.dcgan:main"}, "images", 20000, make_dcgan},
      {"reso", {"milarun.models.subpixel:main"}, "images", 20000, make_reso},
      {"fast_style", {"milarun.models.neural_style:main"}, "images", 20000, make_fast_style},
      // Images of each rank; rank 0's result holds every rank's train_R timings.
      {"scaling",
       {"milarun.models.scaling:main", "milarun.models.scaling.micro_bench:main"},
       "images",
       50000,
       make_scaling},
      // The 2026 profile (profiles/2026.json): B x T tokens per step.
      {"gpt2", {"milarun.models.gpt2:main"}, "tokens", 60000000, make_gpt2},
      {"llama", {"milarun.models.llama:main"}, "tokens", 10000000, make_llama},
      // B images per step, generated on the device.
      {"vit", {"milarun.models.vit:main"}, "images", 200000, make_vit},
      {"dit", {"milarun.models.dit:main"}, "images", 200000, make_dit},
  };
  return table;
}

const WorkloadInfo* find_workload(const std::string& name) {
  std::string key = name;
  const std::string alias = "milabench.models.";
  if (key.rfind(alias, 0) == 0) key = "milarun.models." + key.substr(alias.size());
  for (const auto& w : workload_registry()) {
    if (w.name == key) return &w;
    for (const auto& e : w.experiments)
      if (e == key) return &w;
  }
  return nullptr;
}

}  // namespace milabench
