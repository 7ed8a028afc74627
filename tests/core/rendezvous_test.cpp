#include "launch/rendezvous.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "suite/slurm_launch.hpp"

using namespace milabench;

namespace {

// An environment made of exactly these variables.
EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* k) -> const char* {
    auto it = vars.find(k);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string error_of(const std::map<std::string, std::string>& vars) {
  try {
    rendezvous_from_env(env_of(vars));
  } catch (const RendezvousError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Rendezvous, NoVariablesIsAGroupOfOne) {
  Rendezvous r = rendezvous_from_env(env_of({}));
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.world_size, 1);
  EXPECT_EQ(r.source, "none");
}

TEST(Rendezvous, TorchrunVariables) {
  Rendezvous r = rendezvous_from_env(env_of({{"RANK", "3"},
                                             {"WORLD_SIZE", "4"},
                                             {"LOCAL_RANK", "1"},
                                             {"MASTER_ADDR", "10.0.0.7"},
                                             {"MASTER_PORT", "29411"}}));
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.local_rank, 1);
  EXPECT_EQ(r.master_addr, "10.0.0.7");
  EXPECT_EQ(r.master_port, 29411);
  EXPECT_EQ(r.source, "torchrun");
}

TEST(Rendezvous, TorchrunWinsOverSlurm) {
  Rendezvous r =
      rendezvous_from_env(env_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}}));
  EXPECT_EQ(r.source, "torchrun");
  EXPECT_EQ(r.world_size, 1);
}

TEST(Rendezvous, SlurmVariablesAndCompressedNodeList) {
  Rendezvous r = rendezvous_from_env(env_of({{"SLURM_PROCID", "5"},
                                             {"SLURM_NTASKS", "8"},
                                             {"SLURM_LOCALID", "1"},
                                             {"SLURM_STEP_NODELIST", "cn[07-09,12],gpu3"},
                                             {"SLURM_NODELIST", "other"},
                                             {"SLURM_JOB_ID", "4242"},
                                             {"SLURM_STEP_ID", "3"}}));
  EXPECT_EQ(r.source, "slurm");
  EXPECT_EQ(r.rank, 5);
  EXPECT_EQ(r.world_size, 8);
  EXPECT_EQ(r.local_rank, 1);
  EXPECT_EQ(r.master_addr, "cn07");
  EXPECT_EQ(r.master_port, slurm_port(4242, 3));
  EXPECT_EQ(r.master_port, 20000 + (4242 * 131 + 3) % 40000);
}

TEST(Rendezvous, SlurmStepTaskCountWinsOverTheJobs) {
  Rendezvous r = rendezvous_from_env(env_of(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_NODELIST", "a"}}));
  EXPECT_EQ(r.world_size, 1);
}

TEST(Rendezvous, SlurmMasterOverrides) {
  Rendezvous r = rendezvous_from_env(env_of({{"SLURM_PROCID", "0"},
                                             {"SLURM_NTASKS", "2"},
                                             {"SLURM_NODELIST", "a,b"},
                                             {"MASTER_ADDR", "head"},
                                             {"MASTER_PORT", "1234"}}));
  EXPECT_EQ(r.master_addr, "head");
  EXPECT_EQ(r.master_port, 1234);
}

TEST(Rendezvous, SuccessiveSlurmStepsUseDifferentPorts) {
  EXPECT_NE(slurm_port(77, 0), slurm_port(77, 1));
  EXPECT_NE(slurm_port(77, 0), slurm_port(78, 0));
  for (long long j : {0LL, 1LL, 999999999LL})
    for (int s : {0, 1, 500}) {
      EXPECT_GE(slurm_port(j, s), 20000);
      EXPECT_LT(slurm_port(j, s), 60000);
    }
}

TEST(Rendezvous, FirstHostOfNodeLists) {
  EXPECT_EQ(first_slurm_host("node[01-03,7]"), "node01");
  EXPECT_EQ(first_slurm_host("node[7,01-03]"), "node7");
  EXPECT_EQ(first_slurm_host("a,b"), "a");
  EXPECT_EQ(first_slurm_host("solo"), "solo");
  EXPECT_EQ(first_slurm_host("rack[2]-n[4-5]"), "rack2-n4");
  EXPECT_THROW(first_slurm_host(""), RendezvousError);
  EXPECT_THROW(first_slurm_host("node[01-03"), RendezvousError);
  EXPECT_THROW(first_slurm_host("node[]"), RendezvousError);
}

TEST(Rendezvous, BadValuesNameTheVariable) {
  std::string e = error_of({{"RANK", "one"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  EXPECT_NE(e.find("RANK=\"one\""), std::string::npos) << e;
  e = error_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  EXPECT_NE(e.find("not below the world size 2"), std::string::npos) << e;
  e = error_of({{"RANK", "0"}, {"WORLD_SIZE", "0"}});
  EXPECT_NE(e.find("WORLD_SIZE=\"0\""), std::string::npos) << e;
  e = error_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}});
  EXPECT_NE(e.find("MASTER_PORT=\"70000\""), std::string::npos) << e;
  e = error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29500"}});
  EXPECT_NE(e.find("MASTER_ADDR is not set"), std::string::npos) << e;
  e = error_of({{"RANK", "1"}});
  EXPECT_NE(e.find("WORLD_SIZE is not"), std::string::npos) << e;
  e = error_of({{"SLURM_PROCID", "1"}, {"SLURM_NODELIST", "a"}});
  EXPECT_NE(e.find("SLURM_NTASKS"), std::string::npos) << e;
  e = error_of({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}});
  EXPECT_NE(e.find("no node list"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(Rendezvous, FreePortCanBeBound) {
  int p = free_tcp_port();
  EXPECT_GT(p, 0);
  EXPECT_LE(p, 65535);
}

TEST(SlurmLaunch, AllocationShape) {
  SlurmAllocation a =
      slurm_allocation(env_of({{"SLURM_JOB_ID", "9"}, {"SLURM_JOB_NUM_NODES", "3"}, {"SLURM_CPUS_ON_NODE", "16"}}));
  EXPECT_EQ(a.nodes, 3);
  EXPECT_EQ(a.cpus_per_node, 16);
  a = slurm_allocation(env_of({{"SLURM_JOB_ID", "9"}, {"SLURM_NNODES", "2"}}));
  EXPECT_EQ(a.nodes, 2);
  EXPECT_EQ(a.cpus_per_node, 0);
  a = slurm_allocation(env_of({{"SLURM_JOB_ID", "9"}, {"SLURM_NNODES", "2"}, {"SLURM_JOB_CPUS_PER_NODE", "72(x2)"}}));
  EXPECT_EQ(a.cpus_per_node, 72);
  try {
    slurm_allocation(env_of({}));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("inside an allocation"), std::string::npos);
  }
  EXPECT_THROW(slurm_allocation(env_of({{"SLURM_JOB_ID", "9"}, {"SLURM_NNODES", "x"}})), std::runtime_error);
  EXPECT_THROW(slurm_allocation(env_of({{"SLURM_JOB_ID", "9"}, {"SLURM_NNODES", "1"}, {"SLURM_CPUS_ON_NODE", "0"}})),
               std::runtime_error);
}

TEST(SlurmLaunch, ShellQuoteSurvivesQuotes) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}
