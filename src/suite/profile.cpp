#include "suite/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "results/input_checks.hpp"
#include "results/json_keys.hpp"

namespace milabench {

using ojson = nlohmann::ordered_json;

ojson merge_defaults(const ojson& defaults, const ojson& over) {
  if (!defaults.is_object() || !over.is_object()) return over;
  ojson out = over;
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    auto found = out.find(it.key());
    if (found == out.end()) {
      out[it.key()] = it.value();
    } else if (found->is_object() && it.value().is_object()) {
      *found = merge_defaults(it.value(), *found);
    }
  }
  return out;
}

namespace {

std::string stem_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  auto dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

std::vector<std::string> string_list(const ojson& v, const std::string& path, const std::string& test,
                                     const char* key) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array())
    throw ProfileError(fmt::format("{}: test \"{}\": \"{}\" must be a list of strings", path, test, key));
  for (const auto& e : v) {
    if (!e.is_string())
      throw ProfileError(fmt::format("{}: test \"{}\": \"{}\" must be a list of strings", path, test, key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

const std::vector<std::string> kTestKeys = {"experiment",  "arguments",        "prepare",
                                            "exec_prefix", "partition_scheme", "timeout"};
const std::vector<std::string> kPartitionKeys = {"type", "cgroup"};

// A misspelt key would be ignored (a "timout" keeps 3600 s, "argumnets" runs
// the workload's defaults): refused, naming the closest known key.
void check_keys(const ojson& t, const std::string& path, const std::string& name) {
  for (auto it = t.begin(); it != t.end(); ++it)
    if (std::find(kTestKeys.begin(), kTestKeys.end(), it.key()) == kTestKeys.end())
      throw ProfileError(fmt::format("{}: test \"{}\": {}", path, name, unknown_key_text(it.key(), kTestKeys)));
  auto ps = t.find("partition_scheme");
  if (ps == t.end() || !ps->is_object()) return;
  for (auto it = ps->begin(); it != ps->end(); ++it)
    if (std::find(kPartitionKeys.begin(), kPartitionKeys.end(), it.key()) == kPartitionKeys.end())
      throw ProfileError(
          fmt::format("{}: test \"{}\": partition_scheme: {}", path, name, unknown_key_text(it.key(), kPartitionKeys)));
}

TestSpec read_test(const std::string& name, const ojson& t, const std::string& path) {
  if (!t.is_object()) throw ProfileError(fmt::format("{}: test \"{}\" must be a JSON object", path, name));
  check_keys(t, path, name);
  TestSpec s;
  s.name = name;
  auto exp = t.find("experiment");
  if (exp == t.end() || !exp->is_string())
    throw ProfileError(fmt::format("{}: test \"{}\" has no \"experiment\" string", path, name));
  s.experiment = exp->get<std::string>();
  if (auto a = t.find("arguments"); a != t.end() && !a->is_null()) {
    if (!a->is_object())
      throw ProfileError(fmt::format("{}: test \"{}\": \"arguments\" must be an object", path, name));
    for (auto it = a->begin(); it != a->end(); ++it) {
      // Each entry becomes argv words: "--flag" [value]. Anything else would
      // reach the workload as a stray word or a JSON dump and fail every run.
      if (it.key().size() < 2 || it.key()[0] != '-')
        throw ProfileError(fmt::format("{}: test \"{}\": argument \"{}\" is not a flag (write \"--name\": value)", path,
                                       name, it.key()));
      if (it->is_object() || it->is_array())
        throw ProfileError(
            fmt::format("{}: test \"{}\": argument \"{}\" must be a string, number, true/false or null, not {}", path,
                        name, it.key(), it->is_object() ? "an object" : "a list"));
    }
    s.arguments = *a;
  }
  s.prepare = string_list(t.value("prepare", ojson()), path, name, "prepare");
  s.exec_prefix = string_list(t.value("exec_prefix", ojson()), path, name, "exec_prefix");
  if (auto ps = t.find("partition_scheme"); ps != t.end() && !ps->is_null()) {
    if (!ps->is_object())
      throw ProfileError(fmt::format("{}: test \"{}\": \"partition_scheme\" must be an object", path, name));
    const ojson type_value = ps->value("type", ojson("per-gpu"));
    const std::string type = type_value.is_string() ? type_value.get<std::string>() : type_value.dump();
    if (type == "per-gpu")
      s.partition = PartitionType::PerGpu;
    else if (type == "gpu-progression")
      s.partition = PartitionType::GpuProgression;
    else
      throw ProfileError(fmt::format(
          "{}: test \"{}\": unknown partition_scheme type \"{}\" (expected \"per-gpu\" or \"gpu-progression\")", path,
          name, type));
    if (auto cg = ps->find("cgroup"); cg != ps->end() && !cg->is_null()) {
      if (!cg->is_string())
        throw ProfileError(fmt::format("{}: test \"{}\": partition_scheme \"cgroup\" must be a string", path, name));
      s.cgroup = cg->get<std::string>();
    }
  }
  if (auto to = t.find("timeout"); to != t.end() && !to->is_null()) {
    if (!to->is_number() || !(to->get<double>() > 0) || to->get<double>() > kMaxTimeoutSeconds)
      throw ProfileError(fmt::format("{}: test \"{}\": \"timeout\" must be a positive number of seconds, at most {:g}",
                                     path, name, kMaxTimeoutSeconds));
    s.timeout_s = to->get<double>();
  }
  return s;
}

}  // namespace

namespace {

// Parses `text` and throws ProfileError at the first key that appears twice
// in one object (JSON keeps only one of them silently).
ojson parse_without_duplicate_keys(const std::string& text, const std::string& path) {
  struct Level {
    std::vector<std::string> keys;
    std::string key;  // the key whose value is being read
  };
  std::vector<Level> stack;
  auto cb = [&](int, nlohmann::json::parse_event_t ev, ojson& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start || ev == E::array_start) {
      stack.push_back({});
    } else if (ev == E::object_end || ev == E::array_end) {
      if (!stack.empty()) stack.pop_back();
    } else if (ev == E::key && !stack.empty()) {
      Level& top = stack.back();
      const std::string key = parsed.get<std::string>();
      if (std::find(top.keys.begin(), top.keys.end(), key) != top.keys.end()) {
        if (stack.size() == 1)
          throw ProfileError(fmt::format("{}: test \"{}\" is defined twice — keep one", path, terminal_safe(key)));
        throw ProfileError(fmt::format("{}: test \"{}\": key \"{}\" appears twice in one object — keep one", path,
                                       terminal_safe(stack[0].key), terminal_safe(key)));
      }
      top.keys.push_back(key);
      top.key = key;
    }
    return true;
  };
  return ojson::parse(text, cb);
}

}  // namespace

Profile parse_profile(const std::string& text, const std::string& path) {
  ojson doc;
  try {
    doc = parse_without_duplicate_keys(text, path);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t line = 1, col = 1;
    std::size_t end = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string w = e.what();
    auto p = w.find("syntax error");
    std::string detail = p == std::string::npos ? w : w.substr(p);
    throw ProfileError(fmt::format("{}:{}:{}: parse error: {} — fix the JSON", path, line, col, detail));
  } catch (const nlohmann::json::exception& e) {  // out_of_range 406: a number beyond double (found by fuzz_profile)
    throw ProfileError(fmt::format("{}: {} — fix the JSON", path, e.what()));
  }
  if (!doc.is_object()) throw ProfileError(fmt::format("{}: a profile must be a JSON object of tests", path));
  Profile prof;
  prof.path = path;
  prof.suite = stem_of(path);
  // Results are named "<suite>.<test>.J<id>...json" in the output folder.
  if (std::string why = unsafe_name_reason(prof.suite); !why.empty())
    throw ProfileError(
        fmt::format("{}: the file name gives the suite name \"{}\", which {}; rename the file to "
                    "letters, digits, '_', '.', '+' or '-'",
                    path, terminal_safe(prof.suite), why));
  ojson defaults = doc.contains("*") ? doc["*"] : ojson::object();
  if (!defaults.is_object()) throw ProfileError(fmt::format("{}: test \"*\" (defaults) must be a JSON object", path));
  check_keys(defaults, path, "*");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "*") continue;
    if (std::string why = unsafe_name_reason(it.key()); !why.empty())
      throw ProfileError(
          fmt::format("{}: test name \"{}\" {}; a test name becomes part of result file names: use "
                      "letters, digits, '_', '.', '+' or '-'",
                      path, terminal_safe(it.key()), why));
    if (!it.value().is_object())
      throw ProfileError(fmt::format("{}: test \"{}\" must be a JSON object", path, it.key()));
    prof.tests.push_back(read_test(it.key(), merge_defaults(defaults, it.value()), path));
  }
  if (prof.tests.empty())
    throw ProfileError(
        fmt::format("{}: the profile has no test (a JSON object of tests, as profiles/standard.json)", path));
  return prof;
}

Profile load_profile(const std::string& path) {
  try {
    check_file_size(path, kMaxInputFileBytes, "a profile");
  } catch (const std::runtime_error& e) {
    throw ProfileError(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProfileError(fmt::format("{}: cannot read profile", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_profile(ss.str(), path);
}

std::vector<std::string> profile_test_names(const Profile& p) {
  std::vector<std::string> out;
  for (const auto& t : p.tests) out.push_back(t.name);
  return out;
}

std::string argument_value_string(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return std::to_string(v.get<unsigned long long>());
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
    char buf[64];
    for (int prec = 1; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, d);
      if (std::strtod(buf, nullptr) == d) break;
    }
    return buf;
  }
  return v.dump();
}

std::vector<std::string> map_arguments(const ojson& args, const std::vector<std::string>& extra) {
  auto overridden = [&](const std::string& flag) {
    for (const auto& e : extra)
      if (e == flag || e.rfind(flag + "=", 0) == 0) return true;
    return false;
  };
  std::vector<std::string> out;
  if (!args.is_object()) return out;
  for (auto it = args.begin(); it != args.end(); ++it) {
    const auto& v = it.value();
    if (overridden(it.key())) continue;
    if (v.is_null() || (v.is_boolean() && !v.get<bool>())) continue;
    out.push_back(it.key());
    if (!v.is_boolean()) out.push_back(argument_value_string(v));
  }
  return out;
}

}  // namespace milabench
