#include "results/atomic_write.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "monitor/inventory.hpp"
#include "scratch_dir.hpp"
#include "sys/atomic_file.hpp"

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

TEST(AtomicFile, AnAbandonedWriterLeavesTheOldFileAndNoTemporary) {
  const std::string dir = milabench::test::scratch_dir("atomic_abandon");
  const std::string path = dir + "/data.csv";
  write_text_atomic(path, "old\n");
  std::string tmp;
  {
    AtomicFile f(path);
    tmp = f.temp_path();
    f.write("new, but never committed\n");
    EXPECT_EQ(access(tmp.c_str(), F_OK), 0);
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "old");
  EXPECT_NE(access(tmp.c_str(), F_OK), 0);
}

TEST(AtomicFile, ACommittedStreamReplacesTheFileWhole) {
  const std::string dir = milabench::test::scratch_dir("atomic_stream");
  const std::string path = dir + "/data.bin";
  write_text_atomic(path, "old");
  {
    AtomicFile f(path);
    for (int i = 0; i < 1000; ++i) f.write(std::string(100, char('a' + i % 26)));
    f.commit();
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.size(), 100000u);
  EXPECT_EQ(text.substr(0, 3), "aaa");
}

TEST(AtomicFile, AFolderThatCannotTakeItNamesTheTemporaryFile) {
  try {
    AtomicFile f("/nonexistent-dir/data.csv");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/data.csv.tmp."), std::string::npos) << e.what();
  }
}
