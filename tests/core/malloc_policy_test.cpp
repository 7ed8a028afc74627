// The allocator policy of `milarun run`: chosen from the environment, applied
// with mallopt, and what it changes (large blocks from the heap, not mmap).
#include "launch/malloc_policy.hpp"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

using namespace milabench;

TEST(MallocPolicy, HeapIsTheDefault) {
  std::string error;
  auto p = choose_malloc_policy(nullptr, nullptr, &error);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "heap");
  EXPECT_EQ(malloc_record(*p)["settings"], "M_MMAP_MAX=0 M_TRIM_THRESHOLD=-1");
  EXPECT_EQ(choose_malloc_policy("", "", &error)->name, "heap");
}

TEST(MallocPolicy, SystemKeepsGlibcDefaults) {
  std::string error;
  EXPECT_EQ(choose_malloc_policy("system", nullptr, &error)->name, "system");
}

TEST(MallocPolicy, UserTunablesWinAndAreRecorded) {
  std::string error;
  auto p = choose_malloc_policy(nullptr, "glibc.malloc.arena_max=1", &error);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "tunables");
  EXPECT_EQ(p->settings, "GLIBC_TUNABLES=glibc.malloc.arena_max=1");
  // Tunables about something else leave the choice to MILARUN_MALLOC.
  EXPECT_EQ(choose_malloc_policy(nullptr, "glibc.cpu.hwcaps=-AVX512F", &error)->name, "heap");
}

TEST(MallocPolicy, UnknownPolicyIsOneClearLine) {
  std::string error;
  EXPECT_FALSE(choose_malloc_policy("jemalloc", nullptr, &error));
  EXPECT_NE(error.find("MILARUN_MALLOC=jemalloc"), std::string::npos) << error;
  EXPECT_NE(error.find("heap"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

namespace {
char* volatile g_sink;  // the blocks escape, so the compiler keeps malloc/free

// In a child process (the test process keeps its allocator as it is): apply the
// policy, allocate and free a 64 MiB block twice, and exit with the number of
// mmapped blocks live during the second allocation (0 = it came from the heap)
// plus 10 if the second allocation had to grow the process again.
int mmapped_blocks_after(const char* policy_name) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string error;
    auto p = choose_malloc_policy(policy_name, nullptr, &error);
    if (!p || !apply_malloc_policy(*p, &error)) _exit(100);
    const size_t size = 64u << 20;
    char* a = static_cast<char*>(std::malloc(size));
    std::memset(a, 1, size);
    g_sink = a;
    std::free(g_sink);
    const size_t arena_before = mallinfo2().arena;
    char* b = static_cast<char*>(std::malloc(size));
    std::memset(b, 2, size);
    g_sink = b;
    const struct mallinfo2 mi = mallinfo2();
    const int code = int(mi.hblks) + (mi.arena > arena_before ? 10 : 0);
    std::free(g_sink);
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST(MallocPolicy, HeapPolicyReusesFreedLargeBlocksInsteadOfMappingThemAgain) {
  EXPECT_EQ(mmapped_blocks_after("heap"), 0);    // from the heap, the freed block reused
  EXPECT_EQ(mmapped_blocks_after("system"), 1);  // glibc: a fresh mmap (over its 32 MiB cap)
}
