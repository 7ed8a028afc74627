// sys/staged_folder: a folder appears whole or not at all, for the
// generators (replace), the download's unpacking and extraction (no replace).
#include "sys/staged_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scratch_dir.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using milabench::StagedFolder;
using milabench::test::write_text;

namespace {

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(StagedFolder, AFailedFillLeavesNoStagingFolderAndKeepsTheOldData) {
  const fs::path root = milabench::test::scratch_dir("staged");
  const fs::path final_dir = root / "coco";
  write_text(final_dir / "old.txt", "old");
  try {
    StagedFolder staged(final_dir, "coco", "partial", {"train2017"});
    write_text(staged.path() / "train2017" / "1.jpg", "half");
    throw std::runtime_error("generator failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(names_in(root), std::vector<std::string>{"coco"});
  EXPECT_TRUE(fs::exists(final_dir / "old.txt"));
}

TEST(StagedFolder, PublishWithReplaceSwapsTheOldFolderWhole) {
  const fs::path root = milabench::test::scratch_dir("staged");
  const fs::path final_dir = root / "bsds500";
  write_text(final_dir / "old.txt", "old");
  {
    StagedFolder staged(final_dir, "bsds500", "partial", {"a/b"});
    EXPECT_EQ(staged.path().parent_path(), root);  // same filesystem: publish is a rename
    write_text(staged.path() / "a" / "b" / "new.txt", "new");
    staged.publish(/*replace=*/true);
  }
  EXPECT_FALSE(fs::exists(final_dir / "old.txt"));
  EXPECT_TRUE(fs::exists(final_dir / "a" / "b" / "new.txt"));
  EXPECT_EQ(names_in(root), std::vector<std::string>{"bsds500"});
}

TEST(StagedFolder, PublishWithoutReplaceRefusesAFolderInTheWayAndCleansUp) {
  const fs::path root = milabench::test::scratch_dir("staged");
  const fs::path final_dir = root / "mnist";
  write_text(final_dir / "theirs.txt", "someone else's");
  try {
    StagedFolder staged(final_dir, "mnist", "download");
    write_text(staged.path() / "ours.txt", "ours");
    staged.publish(/*replace=*/false);
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mnist: cannot rename"), std::string::npos) << e.what();
  }
  EXPECT_EQ(names_in(root), std::vector<std::string>{"mnist"});
  EXPECT_EQ(names_in(final_dir), std::vector<std::string>{"theirs.txt"});
}

// The staging name is unique (mkdtemp), not per process: two fills of the
// same target in one process (or two processes with the same pid in two
// containers sharing a data root) never share a folder.
TEST(StagedFolder, TwoFillsOfOneTargetGetTheirOwnFolders) {
  const fs::path root = milabench::test::scratch_dir("staged");
  StagedFolder a(root / "ImageNet", "fake_imagenet", "partial");
  StagedFolder b(root / "ImageNet", "fake_imagenet", "partial");
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(a.path().filename().string().rfind(".ImageNet.partial-", 0), 0u) << a.path();
  write_text(a.path() / "a.txt", "a");
  a.publish(/*replace=*/true);
  EXPECT_TRUE(fs::is_directory(b.path()));  // b still fills its own
}

TEST(StagedFolder, AnUnwritablePlaceIsOneLineNamingThePath) {
  const fs::path root = milabench::test::scratch_dir("staged");
  write_text(root / "file", "x");  // a file where a folder would go
  try {
    StagedFolder staged(root / "file" / "coco", "coco", "partial");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("coco: cannot create " + (root / "file").string()), std::string::npos)
        << e.what();
  }
}

}  // namespace
