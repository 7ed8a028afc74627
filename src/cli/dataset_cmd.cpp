#include "cli/dataset_cmd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "data/manifest.hpp"
#include "fetch/datasets.hpp"
#include "suite/profile.hpp"

namespace milabench {

std::vector<std::string> datasets_of_profile(const std::string& profile_path) {
  std::vector<std::string> out;
  for (const auto& t : load_profile(profile_path).tests) {
    auto it = t.arguments.find("--dataset");
    if (it == t.arguments.end() || !it->is_string()) continue;
    std::string name = it->get<std::string>();
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

namespace {

// The data root and the distinct datasets the command names (its names and
// its --profile's). False after one line on `err` naming the flag to fix.
bool resolve_datasets(const DatasetCommand& cmd, std::string& root, std::vector<const DatasetInfo*>& todo,
                      std::ostream& err) {
  root = cmd.dataroot;
  if (root.empty())
    if (const char* d = std::getenv("MILARUN_DATAROOT")) root = d;
  if (root.empty()) {
    err << "milarun dataset: no data root: pass -d DATAROOT or set MILARUN_DATAROOT\n";
    return false;
  }
  if (!(cmd.options.scale > 0 && cmd.options.scale <= 1)) {
    err << fmt::format("milarun dataset: --scale must be in (0, 1], got {}\n", cmd.options.scale);
    return false;
  }
  std::vector<std::string> names = cmd.names;
  if (!cmd.profile.empty()) {
    try {
      for (auto& n : datasets_of_profile(cmd.profile)) names.push_back(n);
    } catch (const ProfileError& e) {
      err << "milarun dataset: " << e.what() << "\n";
      return false;
    }
  }
  if (names.empty()) {
    err << "milarun dataset: name at least one dataset (or --profile); `milarun list` shows them\n";
    return false;
  }
  for (const auto& n : names) {
    const DatasetInfo* d = find_dataset(n);
    if (!d) {
      err << fmt::format("milarun dataset: unknown dataset '{}'; `milarun list` shows the datasets\n", n);
      return false;
    }
    if (std::find(todo.begin(), todo.end(), d) == todo.end()) todo.push_back(d);
  }
  return true;
}

// --download: fetches each dataset that has a source and records it in the
// manifest; the others are appended to `generate`. Returns the worst status.
int download_datasets(const std::vector<const DatasetInfo*>& todo, const std::string& root,
                      std::vector<const DatasetInfo*>& generate, std::ostream& out, std::ostream& err) {
  int status = 0;
  for (const DatasetInfo* d : todo) {
    if (d->source->files.empty()) {
      out << fmt::format("{}: no download source ({}); generating it\n", d->name, d->source->note);
      generate.push_back(d);
      continue;
    }
    int rc = fetch::download_dataset(d->name, root, out, err);
    if (rc == 0) {
      try {
        record_manifest(root, d->name, {{"synthetic", false}, {"source", "download"}});
      } catch (const std::exception& e) {
        err << "milarun dataset: " << e.what() << "\n";
        rc = 1;
      }
    }
    status = std::max(status, rc);
  }
  return status;
}

// Generates each dataset not present (all with --force). 0, or 1 when one failed.
int generate_datasets(const std::vector<const DatasetInfo*>& generate, const std::string& root,
                      const DatasetOptions& options, std::ostream& out, std::ostream& err) {
  int status = 0;
  for (const DatasetInfo* d : generate) {
    if (!options.force && d->present(root)) {
      out << fmt::format("{}: present under {}\n", d->name, root);
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    out << fmt::format("{}: generating synthetic data (scale {}) under {} ...\n", d->name, options.scale, root);
    out.flush();
    try {
      d->generate(root, options);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out << fmt::format("{}: done in {:.1f} s ({})\n", d->name, s, d->source->layout);
    } catch (const std::exception& e) {
      err << fmt::format("milarun dataset {}: {}\n", d->name, e.what());
      status = 1;
    }
  }
  return status;
}

}  // namespace

int run_dataset_command(const DatasetCommand& cmd, std::ostream& out, std::ostream& err) {
  std::string root;
  std::vector<const DatasetInfo*> todo;
  if (!resolve_datasets(cmd, root, todo, err)) return 2;
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) {
    err << fmt::format("milarun dataset: cannot create data root {}: {}\n", root, ec.message());
    return 2;
  }
  std::vector<const DatasetInfo*> generate;
  const int fetched = cmd.download ? download_datasets(todo, root, generate, out, err) : 0;
  if (!cmd.download) generate = todo;
  return std::max(fetched, generate_datasets(generate, root, cmd.options, out, err));
}

}  // namespace milabench
