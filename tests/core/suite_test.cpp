#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "scratch_dir.hpp"
#include "suite/jobs.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "suite/slurm_launch.hpp"

using namespace milabench;
using ojson = nlohmann::ordered_json;

namespace {

const char* kProfile = R"({
  "*": {"prepare": ["true"], "exec_prefix": ["nocache"],
        "arguments": {"--cuda": true, "--lr": 0.5},
        "partition_scheme": {"type": "per-gpu", "cgroup": "student{CUDA_VISIBLE_DEVICES}"}},
  "vae": {"experiment": "milarun.models.vae:main",
          "arguments": {"--batch-size": 128, "--lr": 0.1}},
  "prog": {"experiment": "milarun.models.convnet:main", "timeout": 12,
           "partition_scheme": {"type": "gpu-progression"}}
})";

PlanInputs inputs(int devices) {
  PlanInputs in;
  in.self_exe = "/bin/milarun";
  in.dataroot = "/data";
  in.outdir = "/out";
  in.devices = devices;
  in.program_exists = [](const std::string&) { return true; };
  return in;
}

}  // namespace

TEST(Profile, MergesDefaults) {
  auto p = parse_profile(kProfile, "profiles/test.json");
  EXPECT_EQ(p.suite, "test");
  ASSERT_EQ(profile_test_names(p), (std::vector<std::string>{"vae", "prog"}));
  const auto& vae = p.tests[0];
  EXPECT_EQ(vae.arguments["--lr"].get<double>(), 0.1);
  EXPECT_TRUE(vae.arguments["--cuda"].get<bool>());
  EXPECT_EQ(vae.arguments["--batch-size"].get<int>(), 128);
  EXPECT_EQ(vae.prepare, std::vector<std::string>{"true"});
  EXPECT_EQ(vae.cgroup, "student{CUDA_VISIBLE_DEVICES}");
  EXPECT_EQ(vae.timeout_s, 3600.0);
  EXPECT_EQ(p.tests[1].partition, PartitionType::GpuProgression);
  EXPECT_EQ(p.tests[1].cgroup, "student{CUDA_VISIBLE_DEVICES}");  // deep merge keeps cgroup
  EXPECT_EQ(p.tests[1].timeout_s, 12.0);
}

TEST(Profile, ArgumentMapping) {
  EXPECT_EQ(argument_value_string(ojson::parse("20000000")), "20000000");
  EXPECT_EQ(argument_value_string(ojson::parse("2e7")), "20000000");
  EXPECT_EQ(argument_value_string(ojson::parse("0.1")), "0.1");
  EXPECT_EQ(argument_value_string(ojson::parse("21.80")), "21.8");
  EXPECT_EQ(argument_value_string(ojson::parse("\"float32\"")), "float32");
  auto args = ojson::parse(R"({"--cuda": true, "--no-x": false, "--n": 4, "--s": "a b"})");
  EXPECT_EQ(map_arguments(args, {}), (std::vector<std::string>{"--cuda", "--n", "4", "--s", "a b"}));
}

TEST(Profile, ExtraArgsOverride) {
  auto args = ojson::parse(R"({"--max-count": 100, "--batch-size": 8})");
  EXPECT_EQ(map_arguments(args, {"--max-count", "5"}), (std::vector<std::string>{"--batch-size", "8"}));
  EXPECT_EQ(map_arguments(args, {"--batch-size=2"}), (std::vector<std::string>{"--max-count", "100"}));
  auto p = parse_profile(kProfile, "p.json");
  auto in = inputs(1);
  in.names = {"vae"};
  in.extra_args = {"--batch-size", "7"};
  auto plan = build_plan(p, in);
  const auto& argv = plan.waves.at(0).at(0).argv;
  std::vector<std::string> want = {"nocache",
                                   "/bin/milarun",
                                   "run",
                                   "milarun.models.vae:main",
                                   "-d",
                                   "/data",
                                   "-o",
                                   "/out/",
                                   "--experiment-name",
                                   "p.vae",
                                   "--job-id",
                                   "0.0",
                                   "--",
                                   "--lr",
                                   "0.1",
                                   "--cuda",
                                   "--batch-size",
                                   "7"};
  EXPECT_EQ(argv, want);
}

TEST(Profile, MalformedNamesFileLineColumn) {
  try {
    parse_profile("{\n  \"a\": {\n    \"experiment\": \"x\",,\n  }\n}", "profiles/x.json");
    FAIL() << "no throw";
  } catch (const ProfileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("profiles/x.json:3:", 0), 0u) << m;
    EXPECT_NE(m.find("fix the JSON"), std::string::npos) << m;
  }
}

TEST(Profile, BadTestsAreNamed) {
  try {
    parse_profile(R"({"t": {"experiment": "e", "partition_scheme": {"type": "weird"}}})", "a.json");
    FAIL();
  } catch (const ProfileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("a.json"), std::string::npos);
    EXPECT_NE(m.find("\"t\""), std::string::npos);
    EXPECT_NE(m.find("weird"), std::string::npos);
  }
  EXPECT_THROW(parse_profile(R"({"t": 3})", "a.json"), ProfileError);
}

TEST(Plan, PerGpuShape) {
  auto p = parse_profile(kProfile, "profiles/standard.json");
  auto in = inputs(2);
  in.names = {"vae"};
  in.repeat = 2;
  in.gpu_ids = {"0", "1"};
  in.cpu_partitions = {{0, 1}, {2, 3}};
  auto plan = build_plan(p, in);
  ASSERT_EQ(plan.waves.size(), 2u);
  std::vector<std::string> ids;
  for (const auto& w : plan.waves) {
    ASSERT_EQ(w.size(), 2u);
    for (const auto& s : w) {
      ids.push_back(s.job_id);
      EXPECT_EQ(s.name, "standard.vae");
    }
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"0.0", "0.1", "1.0", "1.1"}));
  const auto& s = plan.waves[1][1];
  EXPECT_EQ(s.env.at("CUDA_VISIBLE_DEVICES"), "1");
  EXPECT_EQ(s.env.at("MILARUN_CPU_PARTITION"), "1");
  EXPECT_EQ(s.cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.cgroup, "student1");
  EXPECT_EQ(plan.wave_prepare[0], std::vector<std::string>{"true"});
}

TEST(Plan, NoGpusOnlyCpuPartition) {
  auto p = parse_profile(kProfile, "s.json");
  auto in = inputs(1);
  in.names = {"vae"};
  in.no_cgexec = true;
  auto plan = build_plan(p, in);
  const auto& s = plan.waves.at(0).at(0);
  EXPECT_EQ(s.env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(s.env.at("MILARUN_CPU_PARTITION"), "0");
  EXPECT_TRUE(s.cgroup.empty());
}

TEST(Plan, GpuProgressionRunsKRankProcessesPerWave) {
  auto p = parse_profile(kProfile, "standard.json");
  auto in = inputs(3);
  in.names = {"prog"};
  in.repeat = 2;
  in.gpu_ids = {"4", "5", "6"};
  in.cpu_partitions = {{0}, {1}, {2}};
  int next_port = 40000;
  in.pick_port = [&] { return next_port++; };
  auto plan = build_plan(p, in);
  ASSERT_EQ(plan.waves.size(), 6u);
  for (int k = 1; k <= 3; ++k) {
    const auto& wave = plan.waves[k - 1];
    ASSERT_EQ(wave.size(), static_cast<std::size_t>(k));
    for (int r = 0; r < k; ++r) {
      const auto& s = wave[r];
      EXPECT_EQ(s.name, "standard.prog." + std::to_string(k));
      EXPECT_EQ(s.job_id, r == 0 ? "0" : "0-rank" + std::to_string(r));
      EXPECT_EQ(s.env.at("RANK"), std::to_string(r));
      EXPECT_EQ(s.env.at("LOCAL_RANK"), std::to_string(r));
      EXPECT_EQ(s.env.at("WORLD_SIZE"), std::to_string(k));
      EXPECT_EQ(s.env.at("MASTER_ADDR"), "127.0.0.1");
      EXPECT_EQ(s.env.at("MASTER_PORT"), std::to_string(40000 + k - 1));  // one port per group
      EXPECT_EQ(s.env.at("CUDA_VISIBLE_DEVICES"), in.gpu_ids[r]);
      EXPECT_EQ(s.env.at("MILARUN_CPU_PARTITION"), std::to_string(r));
      EXPECT_EQ(s.cpus, (std::vector<int>{r}));
      EXPECT_EQ(s.cgroup, "student" + in.gpu_ids[r]);
      EXPECT_EQ(s.timeout_s, 12.0);
      EXPECT_EQ(is_secondary_rank(s), r != 0);
    }
  }
  EXPECT_EQ(plan.waves[4][1].job_id, "1-rank1");  // second repeat
  EXPECT_FALSE(is_secondary_rank(plan.waves[0][0]));
}

namespace {

std::string script_of(const ProcessSpec& s) {
  EXPECT_GE(s.argv.size(), 3u);
  EXPECT_EQ(s.argv[s.argv.size() - 3], "/bin/sh");
  return s.argv.back();
}

bool has_arg(const ProcessSpec& s, const std::string& a) {
  return std::find(s.argv.begin(), s.argv.end(), a) != s.argv.end();
}

}  // namespace

TEST(Plan, SlurmWavesAreSrunSteps) {
  auto p = parse_profile(kProfile, "standard.json");
  auto in = inputs(2);
  in.launcher = Launcher::Slurm;
  in.slurm_nodes = 3;
  in.slurm_cpus_per_node = 5;  // 2 tasks per node: 2 CPUs each
  in.cpu_partitions = {{0}, {1}};
  auto plan = build_plan(p, in);
  ASSERT_EQ(plan.waves.size(), 1u + 6u);  // vae once, prog on 1..6 tasks
  const auto& vae = plan.waves[0].at(0);
  EXPECT_EQ(vae.argv[0], "srun");
  EXPECT_TRUE(has_arg(vae, "--nodes=3"));
  EXPECT_TRUE(has_arg(vae, "--ntasks=6"));
  EXPECT_TRUE(has_arg(vae, "--ntasks-per-node=2"));
  EXPECT_TRUE(has_arg(vae, "--cpus-per-task=2"));
  EXPECT_TRUE(vae.cpus.empty());
  EXPECT_TRUE(vae.cgroup.empty());
  std::string sh = script_of(vae);
  EXPECT_NE(sh.find("J='0'.\"$SLURM_PROCID\""), std::string::npos) << sh;
  EXPECT_NE(sh.find("'--job-id' \"$J\""), std::string::npos) << sh;
  EXPECT_NE(sh.find("exec 'nocache' '/bin/milarun' 'run' 'milarun.models.vae:main'"), std::string::npos) << sh;
  EXPECT_NE(sh.find("OMP_NUM_THREADS=2"), std::string::npos) << sh;
  EXPECT_EQ(sh.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << sh;  // no GPUs here

  const auto& prog3 = plan.waves[3].at(0);
  EXPECT_EQ(prog3.name, "standard.prog.3");
  EXPECT_TRUE(has_arg(prog3, "--ntasks=3"));
  EXPECT_TRUE(has_arg(prog3, "--nodes=2"));
  EXPECT_FALSE(has_arg(prog3, "--ntasks-per-node=2"));
  sh = script_of(prog3);
  EXPECT_NE(sh.find("[ \"$SLURM_PROCID\" = 0 ] || J='0'-rank\"$SLURM_PROCID\""), std::string::npos) << sh;
  EXPECT_EQ(sh.find("RANK="), std::string::npos) << sh;  // the Slurm rendezvous variables are used
}

TEST(Plan, SlurmRunsTheTaskScriptThroughSh) {
  auto p = parse_profile(kProfile, "standard.json");
  auto in = inputs(2);
  in.names = {"vae"};
  in.launcher = Launcher::Slurm;
  in.gpu_ids = {"0", "1"};
  in.self_exe = "/bin/echo";
  for (auto& t : p.tests) t.exec_prefix.clear();  // the script must run without nocache installed
  in.extra_args = {"--note", "it's"};
  auto plan = build_plan(p, in);
  std::string sh = script_of(plan.waves.at(0).at(0));
  EXPECT_NE(sh.find("export CUDA_VISIBLE_DEVICES=\"$SLURM_LOCALID\""), std::string::npos) << sh;
  // The script, run as Slurm would for task 1 on its node, prints the argv with the task's job id.
  std::string cmd = "SLURM_PROCID=1 SLURM_LOCALID=1 /bin/sh -c " + shell_quote(sh);
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[4096] = {0};
  std::string out;
  while (fgets(buf, sizeof buf, f)) out += buf;
  EXPECT_EQ(pclose(f), 0);
  EXPECT_NE(out.find("--job-id 0.1 --"), std::string::npos) << out;
  EXPECT_NE(out.find("--note it's"), std::string::npos) << out;
}

TEST(Plan, UnknownNameListsAvailable) {
  auto p = parse_profile(kProfile, "s.json");
  auto in = inputs(1);
  in.names = {"nope"};
  try {
    build_plan(p, in);
    FAIL();
  } catch (const ProfileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("nope"), std::string::npos);
    EXPECT_NE(m.find("vae, prog"), std::string::npos) << m;
  }
}

TEST(Plan, MissingPrefixProgramIsAnErrorNamingTestProgramAndPackage) {
  auto p = parse_profile(kProfile, "s.json");
  auto in = inputs(1);
  in.program_exists = [](const std::string&) { return false; };
  try {
    build_plan(p, in);
    FAIL() << "a missing exec_prefix program must stop the plan";
  } catch (const ProfileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("s.json"), std::string::npos) << m;
    EXPECT_NE(m.find("\"nocache\""), std::string::npos) << m;
    EXPECT_NE(m.find("apt-get install nocache"), std::string::npos) << m;
  }
  in.program_exists = [](const std::string&) { return true; };
  EXPECT_EQ(build_plan(p, in).waves[0][0].argv[0], "nocache");
}

TEST(Profile, ShippedProfilesLoad) {
  const char* src = std::getenv("MILABENCH_SOURCE");
  if (!src) GTEST_SKIP() << "MILABENCH_SOURCE not set";
  for (const char* f : {"standard", "5gb", "10gb", "lite"}) {
    auto p = load_profile(std::string(src) + "/profiles/" + f + ".json");
    EXPECT_EQ(p.suite, f);
    EXPECT_GE(p.tests.size(), 5u) << f;
    for (const auto& t : p.tests) EXPECT_FALSE(t.experiment.empty()) << t.name;
  }
}

TEST(Jobs, RunsAndWritesFailureFile) {
  std::string dir = milabench::test::scratch_dir("jobs_test");
  std::string prof = dir + "/mini.json";
  std::ofstream(prof) << R"({"*": {"prepare": ["exit 1"]},
    "good": {"experiment": "x", "arguments": {"--code": 0}},
    "bad": {"experiment": "x", "arguments": {"--code": 4}}})";
  // A fake milarun: exits with the value after --code (3 would mean "result
  // parked elsewhere", for which jobs writes no FAIL file: results/run_exit.hpp).
  std::string fake = dir + "/fake.sh";
  // On --code 0 it writes a result, as a run that ended well does.
  std::ofstream(fake) << "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -o) o=$2;; --experiment-name) n=$2;; "
                         "--job-id) j=$2;; --code) [ $2 = 0 ] && echo '{\"name\": \"'$n'\", \"success\": true}' > "
                         "\"$o/$n.J$j.20260101-000000-000000.json\"; "
                         "exit $2;; esac; shift; done\n";
  chmod(fake.c_str(), 0755);
  JobsOptions o;
  o.profile = prof;
  o.dataroot = dir;
  o.outdir = dir + "/out";
  o.devices = 1;
  o.self_exe = fake;
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("mini.good J0.0 OK"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("mini.bad J0.0 FAIL"), std::string::npos) << out.str();
  EXPECT_NE(err.str().find("prepare"), std::string::npos);
  EXPECT_TRUE(has_result_file(o.outdir, "mini.bad", "0.0", ResultFolderState{}));
  EXPECT_TRUE(existing_results(o.outdir).at({"mini.good", "0.0"}).success);  // its own file, no FAIL file
  o.names = {"good"};
  EXPECT_EQ(run_jobs(o, out, err), 0);
  o.names = {"missing"};
  EXPECT_EQ(run_jobs(o, out, err), 2);
  o.names = {};
  o.outdir = "/proc/nope/out";
  std::ostringstream err2;
  EXPECT_EQ(run_jobs(o, out, err2), 2);
  EXPECT_NE(err2.str().find("/proc/nope/out"), std::string::npos);
}

TEST(Jobs, FailureResultDocument) {
  ProcessSpec s;
  s.name = "standard.vae";
  s.job_id = "0.1";
  s.timeout_s = 30;
  ProcessResult r;
  r.started = true;
  r.timed_out = true;
  r.signal = 15;
  auto d = failure_result(s, r);
  EXPECT_EQ(d["error"], "timeout after 30 s");
  EXPECT_EQ(d["failure_kind"], "timeout");
  EXPECT_TRUE(d["device"].is_null());
  EXPECT_FALSE(d["success"].get<bool>());
}
