// The results store under faults (SQLite): a writer killed mid-suite loses
// no committed run and leaves a usable store; two writers at once lose and
// duplicate nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

#include "report/summary.hpp"
#include "results/result_scan.hpp"
#include "scratch_dir.hpp"
#include "store/recorder.hpp"
#include "store/result_store.hpp"
#include "store_engines.hpp"
#include "store_files.hpp"

using namespace milabench;
using namespace milabench::store;

namespace {

std::string file_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// In a child process: records every result of `dir` one by one, writing one
// byte to `fd` after each commit, then waits to be killed; exits 1 on a store error.
[[noreturn]] void record_each(const std::string& db, const std::string& dir, int fd) {
  try {
    auto s = open_store(db);
    const auto suite = s->suite_run({"labnode", absolute_dir(dir), "cpu", "", "", ""});
    for (const auto& path : json_files_in(dir)) {
      s->record_run(suite, "labnode", file_of(path), read_json_file(path));
      if (fd >= 0 && ::write(fd, "x", 1) != 1) _exit(1);
    }
  } catch (const std::exception&) {
    _exit(1);
  }
  for (;;) ::pause();  // done: wait for the kill, so the parent always kills a live writer
}

}  // namespace

class StoreFaults : public test::StoreEngine {};
INSTANTIATE_STORE_ENGINES(StoreFaults);

TEST_P(StoreFaults, KilledWriterLosesNoCommittedRun) {
  const std::string db = fresh_store("kill");
  const std::string dir = test::suite_folder("kill", "cpu.vae", 100, 1700000000, 10, 2);  // 20 runs
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(p[0]);
    record_each(db, dir, p[1]);
  }
  ::close(p[1]);
  char buf[5];
  int committed = 0;
  while (committed < 5) {  // five runs committed: kill the writer wherever it is in the sixth
    const ssize_t n = ::read(p[0], buf, 5 - committed);
    ASSERT_GT(n, 0) << "the writer ended early";
    committed += static_cast<int>(n);
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(p[0]);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto s = open_store(db);
  if (!pg()) EXPECT_EQ(*s->connection().query("PRAGMA integrity_check").at(0).at(0), "ok");
  const std::int64_t kept = s->run_count();
  EXPECT_GE(kept, 5);  // every run whose commit was acknowledged
  EXPECT_LE(kept, 20);
  for (const auto& [file, doc] : s->run_docs(1)) EXPECT_EQ(doc.value("name", ""), "cpu.vae") << file;
  std::ostringstream warn;  // the store stays usable: the rest is added once, the kept ones not again
  const auto n = import_directory(*s, dir, warn);
  EXPECT_EQ(n.added + n.present, 20);
  EXPECT_EQ(n.present, kept);
  EXPECT_EQ(s->run_count(), 20);
}

TEST_P(StoreFaults, TwoWritersAtOnceLoseAndDuplicateNothing) {
  const std::string db = fresh_store("two");
  const std::string shared = test::suite_folder("two_shared", "cpu.vae", 100, 1700000000, 10, 2);
  const std::string a = test::suite_folder("two_a", "cpu.vae", 100, 1700001000, 10, 2);
  const std::string b = test::suite_folder("two_b", "cpu.vae", 100, 1700002000, 10, 2);
  open_store(db);  // schema first: the two writers race on the runs, not on creating the file
  pid_t pids[4];
  const std::string dirs[4] = {shared, shared, a, b};  // both writers record the shared folder, then their own
  for (int i = 0; i < 2; ++i) {
    pids[i] = ::fork();
    ASSERT_GE(pids[i], 0);
    if (pids[i] == 0) {
      try {
        auto s = open_store(db);
        std::ostringstream warn;
        import_directory(*s, dirs[i], warn);
        import_directory(*s, dirs[i + 2], warn);
      } catch (const std::exception&) {
        _exit(1);
      }
      _exit(0);
    }
  }
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    ::waitpid(pids[i], &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << i << " failed";
  }
  auto s = open_store(db);
  EXPECT_EQ(s->run_count(), 60);
  EXPECT_EQ(*s->connection().query("SELECT COUNT(DISTINCT run_key) FROM runs").at(0).at(0), "60");
  EXPECT_EQ(s->suite_runs().size(), 3u);
}
