#include "run/run_errors.hpp"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <new>
#include <string>

#include "data/data_error.hpp"
#include "training/loss_canary.hpp"
#include "training/nonfinite_loss.hpp"

namespace milabench {

namespace {

// A failed host allocation: what the wrapped allocator throws.
class HostOutOfMemory : public std::bad_alloc {
 public:
  explicit HostOutOfMemory(size_t bytes)
      : what_("cannot allocate " + std::to_string(bytes) + " bytes of host memory") {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// Delegates every call to torch's CPU allocator; an exception from its
// allocate() (the allocation is all it does) becomes HostOutOfMemory.
// allocate() and copy_data() are declared for both libtorch 1.13 (const
// allocate) and 2.x (non-const allocate, pure copy_data); the one the base
// declares is the override.
class TypedOomAllocator : public c10::Allocator {
 public:
  explicit TypedOomAllocator(c10::Allocator* inner) : inner_(inner) {}
  c10::DataPtr allocate(size_t n) const { return guarded(n); }
  c10::DataPtr allocate(size_t n) { return guarded(n); }
  c10::DeleterFnPtr raw_deleter() const override { return inner_->raw_deleter(); }
  void copy_data(void* dest, const void* src, std::size_t count) const { std::memcpy(dest, src, count); }

 private:
  c10::DataPtr guarded(size_t n) const {
    try {
      return inner_->allocate(n);
    } catch (const c10::Error&) {
      throw HostOutOfMemory(n);
    }
  }
  c10::Allocator* inner_;
};

}  // namespace

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
  return line;
}

RunFailure classify_current_exception() {
  RunFailure f;
  try {
    throw;
  } catch (const LossCanaryFailed& e) {
    f = {FailureKind::BadResult, first_line(e.what()), e.what()};
  } catch (const NonFiniteLoss& e) {
    f = {FailureKind::NonFiniteLoss, first_line(e.what()), e.what()};
  } catch (const c10::OutOfMemoryError& e) {
    f = {FailureKind::Oom, "out of memory: " + first_line(e.what_without_backtrace()), e.what()};
  } catch (const std::bad_alloc& e) {
    f = {FailureKind::Oom, std::string("out of memory: ") + first_line(e.what()), e.what()};
  } catch (const DataError& e) {
    f = {FailureKind::BadInput, first_line(e.what()), e.what()};
  } catch (const c10::Error& e) {
    f = {FailureKind::Exception, first_line(e.what_without_backtrace()), e.what()};
  } catch (const std::exception& e) {
    f = {FailureKind::Exception, first_line(e.what()), e.what()};
  } catch (...) {
    f = {FailureKind::Exception, "unknown exception (not a std::exception)", ""};
  }
  if (f.message.empty()) f.message = failure_kind_name(f.kind);
  return f;
}

void install_typed_cpu_oom() {
  static TypedOomAllocator* installed = nullptr;
  if (installed) return;
  installed = new TypedOomAllocator(c10::GetCPUAllocator());  // lives as long as the process, as torch's own
  c10::SetCPUAllocator(installed, /*priority=*/100);
}

}  // namespace milabench
