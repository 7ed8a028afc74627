#include "results/failure_kind.hpp"

#include <utility>

namespace milabench {

namespace {
constexpr std::pair<FailureKind, const char*> kNames[] = {
    {FailureKind::Exception, "exception"},
    {FailureKind::Oom, "oom"},
    {FailureKind::NonFiniteLoss, "nonfinite_loss"},
    {FailureKind::BadInput, "bad_input"},
    {FailureKind::Exit, "exit"},
    {FailureKind::Signal, "signal"},
    {FailureKind::Timeout, "timeout"},
    {FailureKind::Interrupted, "interrupted"},
    {FailureKind::NotStarted, "not_started"},
    {FailureKind::GroupMemberFailed, "group_member_failed"},
    {FailureKind::BadResult, "bad_result"},
    {FailureKind::BadData, "bad_data"},
    {FailureKind::Unknown, "unknown"},
};
}  // namespace

const char* failure_kind_name(FailureKind k) {
  for (const auto& [kind, name] : kNames)
    if (kind == k) return name;
  return "unknown";
}

std::optional<FailureKind> parse_failure_kind(const std::string& s) {
  for (const auto& [kind, name] : kNames)
    if (s == name) return kind;
  return std::nullopt;
}

bool failure_is_unfinished(FailureKind k) { return k == FailureKind::Interrupted || k == FailureKind::NotStarted; }

}  // namespace milabench
