// Failure kinds, result discovery for --resume, parked results, and
// interrupting a wave.
#include "suite/run_outcome.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "driven_wave.hpp"
#include "launch/interrupt.hpp"
#include "launch/process.hpp"
#include "results/result_record.hpp"
#include "scratch_dir.hpp"
#include "suite/jobs.hpp"
#include "sys/dirs.hpp"
#include "test_files.hpp"

using namespace milabench;

namespace {

ProcessResult exited(int code) {
  ProcessResult r;
  r.started = true;
  r.exit_code = code;
  return r;
}

}  // namespace

TEST(RunOutcome, EachWayOfFailingHasItsKind) {
  EXPECT_EQ(failure_kind(exited(1)), "exit");
  EXPECT_EQ(failure_kind(exited(2)), "bad_input");
  ProcessResult sig = exited(0);
  sig.signal = SIGSEGV;
  EXPECT_EQ(failure_kind(sig), "signal");
  ProcessResult t = sig;
  t.timed_out = true;
  EXPECT_EQ(failure_kind(t), "timeout");
  ProcessResult oom = exited(0);
  oom.signal = SIGKILL;
  oom.oom_killed = true;
  EXPECT_EQ(failure_kind(oom), "oom");
  ProcessResult intr = sig;
  intr.interrupted = true;
  EXPECT_EQ(failure_kind(intr), "interrupted");
  ProcessResult never;
  never.interrupted = true;
  EXPECT_EQ(failure_kind(never), "not_started");
  EXPECT_FALSE(intr.ok());
}

TEST(RunOutcome, AStoppedRankReportsTheRankWhoseFailureStoppedIt) {
  ProcessSpec r0, r1;
  r0.name = r1.name = "p.scaling.2";
  r0.job_id = "0";
  r1.job_id = "0-rank1";
  ProcessResult died = exited(0), stopped = exited(0);
  died.signal = SIGKILL;
  stopped.signal = SIGTERM;
  stopped.stopped_for = 1;
  EXPECT_EQ(failure_kind(stopped), "group_member_failed");
  auto doc = failure_result({r0, r1}, {stopped, died}, 0);
  EXPECT_EQ(doc["job_id"], "0");
  EXPECT_EQ(doc["failure_kind"], "signal") << "the root cause, not the stop";
  EXPECT_EQ(doc["failed_group_member"], "0-rank1");
  EXPECT_EQ(doc["error"], "stopped: p.scaling.2 J0-rank1 of its group failed first (killed by signal 9)");
  auto own = failure_result({r0, r1}, {stopped, died}, 1);
  EXPECT_EQ(own["failure_kind"], "signal");
  EXPECT_FALSE(own.contains("failed_group_member"));
}

TEST(RunOutcome, EveryFailureResultReadsBackAsTheTypedRecord) {
  ProcessSpec spec;
  spec.name = "cpu.convnet.0";
  spec.job_id = "7";
  spec.device = "3";
  ProcessResult sig = exited(0), timeout = exited(0), oom = exited(0), intr = exited(0), never;
  sig.signal = SIGSEGV;
  timeout.timed_out = true;
  oom.signal = SIGKILL;
  oom.oom_killed = true;
  intr.interrupted = true;
  never.interrupted = true;
  for (const ProcessResult& r : {exited(1), exited(2), sig, timeout, oom, intr, never}) {
    std::string why;
    const auto rec = parse_result_record(failure_result(spec, r), &why);
    ASSERT_TRUE(rec) << why;
    EXPECT_EQ(rec->name, "cpu.convnet.0");
    EXPECT_EQ(rec->job_id, "7");
    EXPECT_FALSE(rec->success);
    ASSERT_TRUE(rec->failure_kind);
    EXPECT_EQ(*rec->failure_kind, failure_kind_of(r));
    EXPECT_TRUE(rec->counted());
  }
  // A stopped rank carries the kind of the rank that failed first.
  ProcessSpec r1 = spec;
  r1.job_id = "7-rank1";
  ProcessResult stopped = exited(0);
  stopped.signal = SIGTERM;
  stopped.stopped_for = 1;
  const auto rec = parse_result_record(failure_result({spec, r1}, {stopped, oom}, 0));
  ASSERT_TRUE(rec && rec->failure_kind);
  EXPECT_EQ(*rec->failure_kind, FailureKind::Oom);
  const auto doc = failure_result(spec, sig);
  EXPECT_EQ(doc["device"], 3);  // the original's types, as the harness writes them
  EXPECT_EQ(doc["devices"], nlohmann::json::array({3}));
}

TEST(RunOutcome, ExistingResultsAreKeyedByNameAndJobIdAndASuccessWins) {
  std::string d = test::scratch_dir("outcome");
  test::write_text(d + "/cpu.toy_reg.J0.1.20260101-000000-000001.json", R"({"name": "cpu.toy_reg", "success": true})");
  test::write_text(d + "/cpu.toy_reg.J0.1.FAIL.20260101-000000-000000.json",
                   R"({"name": "cpu.toy_reg", "success": false})");
  test::write_text(d + "/cpu.vae.J1.0.FAIL.20260101-000000-000000.json",
                   R"({"name": "cpu.vae", "success": false, "failure_kind": "interrupted"})");
  // What the summary would skip is not done either (the typed read): no name, a newer schema.
  test::write_text(d + "/cpu.ppo.J2.0.20260101-000000-000000.json", R"({"success": true})");
  test::write_text(d + "/cpu.dcgan.J3.0.20260101-000000-000000.json",
                   R"({"name": "cpu.dcgan", "success": true, "schema_version": 99})");
  test::write_text(d + "/cpu.cart.J0.0.20260101-000000-000000.json", "{trunc");  // unreadable: run again
  test::write_text(d + "/summary.json", "{}");
  test::write_text(d + "/cpu.scaling.2.J0-rank1.FAIL.20260101-000000-000000.json",
                   R"({"name": "cpu.scaling.2", "success": false, "failure_kind": "signal", "subjob": true})");
  auto found = existing_results(d);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found.at({"cpu.scaling.2", "0-rank1"}).failure_kind, "signal");
  EXPECT_TRUE(found.at({"cpu.toy_reg", "0.1"}).success);
  EXPECT_EQ(found.at({"cpu.vae", "1.0"}).failure_kind, "interrupted");
}

TEST(RunOutcome, ParkedResultsGoBackToTheirFolder) {
  std::string d = test::scratch_dir("outcome");
  setenv("TMPDIR", d.c_str(), 1);
  std::string out = d + "/out";
  ASSERT_TRUE(make_dirs(out));
  EXPECT_EQ(unsaved_dir(out), unsaved_dir(out + "/"));
  EXPECT_NE(unsaved_dir(out), unsaved_dir(d + "/other"));
  EXPECT_EQ(unsaved_dir(out).rfind(d + "/milarun-unsaved/", 0), 0u);
  ASSERT_TRUE(make_dirs(unsaved_dir(out)));
  test::write_text(unsaved_dir(out) + "/t.a.J0.0.20260101-000000-000000.json", R"({"name": "t.a", "success": true})");
  std::ostringstream err;
  EXPECT_EQ(restore_unsaved(out, err), 1);
  EXPECT_EQ(existing_results(out).size(), 1u);
  EXPECT_EQ(restore_unsaved(out, err), 0);
  unsetenv("TMPDIR");
}

// Once both children run, SIGINT to the orchestrator stops them with
// SIGTERM at once; time stands still (FakeClock), so neither a timeout nor
// the kill grace can be what ended them.
TEST(RunOutcome, AnInterruptStopsEveryChildOfTheWave) {
  std::string d = test::scratch_dir("outcome");
  install_interrupt_handlers();
  std::vector<ProcessSpec> specs(2);
  for (int i = 0; i < 2; ++i) {
    specs[i].argv = {"sh", "-c", "touch " + d + "/started." + std::to_string(i) + "; exec sleep 30"};
    specs[i].name = "t.sleep";
    specs[i].job_id = "0." + std::to_string(i);
  }
  test::DrivenWave wave(specs, d + "/logs", 1.0, 10.0);
  ASSERT_TRUE(test::wait_for_file(d + "/started.0") && test::wait_for_file(d + "/started.1"));
  ::kill(::getpid(), SIGINT);
  auto res = wave.results();
  EXPECT_EQ(interrupt_signal(), SIGINT);
  reset_interrupt();
  for (const auto& r : res) {
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.signal, SIGTERM);
    EXPECT_EQ(failure_kind(r), "interrupted");
    EXPECT_DOUBLE_EQ(r.wall_s, 0.0);
  }
}

TEST(Jobs, ResumeSkipsRunsWithAResultAndRerunsInterruptedOnes) {
  std::string dir = test::scratch_dir("resume");
  std::string prof = dir + "/mini.json";
  test::write_text(prof, R"({"a": {"experiment": "x"}, "b": {"experiment": "x"}})");
  // A fake milarun-torch: writes a success result named like the real one and counts its calls.
  std::string fake = dir + "/fake.sh";
  test::write_text(fake,
                   "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -o) o=$2;; --experiment-name) n=$2;; --job-id) j=$2;; "
                   "esac; shift; done\necho x >> \"$o/../calls\"\n"
                   "echo '{\"name\": \"'$n'\", \"success\": true}' > \"$o/$n.J$j.20260101-000000-000000.json\"\n");
  chmod(fake.c_str(), 0755);
  JobsOptions o;
  o.profile = prof;
  o.dataroot = dir;
  o.outdir = dir + "/out";
  o.devices = 1;
  o.self_exe = fake;
  o.resume = true;
  ASSERT_TRUE(make_dirs(o.outdir));
  test::write_text(o.outdir + "/mini.a.J0.0.20260101-000000-000000.json", R"({"name": "mini.a", "success": true})");
  test::write_text(o.outdir + "/mini.b.J0.0.FAIL.20260101-000000-000000.json",
                   R"({"name": "mini.b", "success": false, "failure_kind": "interrupted"})");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 0) << out.str() << err.str();
  EXPECT_NE(err.str().find("1 run(s) already have a result"), std::string::npos) << err.str();
  auto found = existing_results(o.outdir);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found.at({"mini.b", "0.0"}).success);  // the interrupted file was replaced
  struct stat st {};
  EXPECT_NE(::stat((o.outdir + "/mini.b.J0.0.FAIL.20260101-000000-000000.json").c_str(), &st), 0);
  std::ifstream calls(dir + "/calls");
  std::string all((std::istreambuf_iterator<char>(calls)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "x\n");  // only b ran
}
