#include "results/atomic_write.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "monitor/inventory.hpp"
#include "scratch_dir.hpp"

using namespace milabench;

TEST(AtomicWrite, LeavesOnlyTheFinalFile) {
  const std::string dir = milabench::test::scratch_dir("mbres");
  std::string path = std::string(dir) + "/r.json";
  write_json_atomic(path, {{"success", true}});
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["success"].get<bool>());
  EXPECT_NE(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
}

TEST(AtomicWrite, UnwritableFolderThrowsNamingThePath) {
  try {
    write_json_atomic("/nonexistent-dir/x.json", {{"a", 1}});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.json"), std::string::npos);
  }
}

TEST(Inventory, HasCpuAndMemory) {
  auto inv = machine_inventory();
  EXPECT_GT(inv["cpu_count"].get<int>(), 0);
  EXPECT_GT(inv["ram_mb"].get<double>(), 0);
  EXPECT_GT(peak_rss_mb(), 0);
}
