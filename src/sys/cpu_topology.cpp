#include "sys/cpu_topology.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace milabench {

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> out;
  std::istringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty()) continue;
    try {
      auto dash = part.find('-');
      int a = std::stoi(part.substr(0, dash));
      int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
      if (a < 0 || b < a || b > 65535) return {};
      for (int c = a; c <= b; ++c) out.push_back(c);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

std::string cpu_list_string(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::optional<ThreadSiblings> read_thread_siblings(const std::string& cpu_root, const std::vector<int>& cpus,
                                                   std::string& why) {
  ThreadSiblings out;
  for (int c : cpus) {
    const std::string path = cpu_root + "/cpu" + std::to_string(c) + "/topology/thread_siblings_list";
    std::ifstream in(path);
    std::string line;
    std::vector<int> threads;
    if (std::getline(in, line)) threads = parse_cpu_list(line);
    if (std::find(threads.begin(), threads.end(), c) == threads.end()) {
      why = "cannot read " + path + " (or it does not list CPU " + std::to_string(c) + ")";
      return std::nullopt;
    }
    std::sort(threads.begin(), threads.end());
    out[c] = threads;
  }
  return out;
}

namespace {
const std::vector<int>& core_of(int cpu, const ThreadSiblings& siblings, std::vector<int>& alone) {
  auto it = siblings.find(cpu);
  if (it != siblings.end()) return it->second;
  alone = {cpu};
  return alone;
}
}  // namespace

std::vector<int> order_by_core(const std::vector<int>& cpus, const ThreadSiblings& siblings) {
  const std::set<int> in(cpus.begin(), cpus.end());
  std::set<int> placed;
  std::vector<int> out;
  std::vector<int> alone;
  for (int c : cpus) {
    if (placed.count(c)) continue;
    for (int t : core_of(c, siblings, alone))
      if (t == c || (in.count(t) && !placed.count(t))) {
        out.push_back(t);
        placed.insert(t);
      }
  }
  return out;
}

std::vector<int> siblings_outside(const std::vector<int>& cpus, const ThreadSiblings& siblings) {
  const std::set<int> in(cpus.begin(), cpus.end());
  std::set<int> outside;
  std::vector<int> alone;
  for (int c : cpus)
    for (int t : core_of(c, siblings, alone))
      if (!in.count(t)) outside.insert(t);
  return {outside.begin(), outside.end()};
}

std::vector<SharedCores> shared_cores(const std::vector<std::vector<int>>& sets, const ThreadSiblings& siblings) {
  std::vector<int> alone;
  auto core_key = [&](int cpu) { return core_of(cpu, siblings, alone).front(); };
  std::vector<std::map<int, int>> by_core(sets.size());  // per set: core key -> one of its CPUs there
  for (std::size_t i = 0; i < sets.size(); ++i)
    for (int c : sets[i]) by_core[i].emplace(core_key(c), c);
  std::vector<SharedCores> out;
  for (std::size_t i = 0; i < sets.size(); ++i)
    for (std::size_t j = i + 1; j < sets.size(); ++j) {
      const std::set<int> in_i(sets[i].begin(), sets[i].end());
      SharedCores shared{i, j, 0, -1, -1};
      std::set<int> counted;
      for (int c : sets[j]) {
        if (in_i.count(c)) continue;
        auto it = by_core[i].find(core_key(c));
        if (it == by_core[i].end() || it->second == c || !counted.insert(it->first).second) continue;
        if (shared.cores++ == 0) {
          shared.cpu_in_first = it->second;
          shared.cpu_in_second = c;
        }
      }
      if (shared.cores > 0) out.push_back(shared);
    }
  return out;
}

}  // namespace milabench
