// The check-args protocol (results/args_check.hpp): what `milarun jobs`
// writes is what `milarun-torch check-args --batch -` reads, and back.
#include "results/args_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

using namespace milabench;

TEST(ArgsCheckProtocol, RequestsRoundTripWithEveryWordKept) {
  const std::vector<ArgsCheckRequest> sent = {
      {"convnet", "convnet", {"--batch-size", "64", "--lr", "0.1"}},
      {"wlm.0", "milarun.models.wlm:main", {}},
      {"odd", "x", {"-- spaced word", "\"quoted\"", "ünï"}},
  };
  const auto got = decode_args_check_requests(encode_args_check_requests(sent));
  ASSERT_EQ(got.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(got[i].test, sent[i].test);
    EXPECT_EQ(got[i].experiment, sent[i].experiment);
    EXPECT_EQ(got[i].arguments, sent[i].arguments);
  }
}

TEST(ArgsCheckProtocol, ANumberWordFromAHandWrittenBatchIsKeptAsItsText) {
  const auto got = decode_args_check_requests(R"([{"test": "t", "experiment": "e", "arguments": [32, 0.5]}])");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].arguments, (std::vector<std::string>{"32", "0.5"}));
}

TEST(ArgsCheckProtocol, AMalformedBatchIsRefusedWithTheLineToPrint) {
  for (const char* bad : {"", "{}", "not json", R"([{"test": "t"}])", R"([{"test": 1, "experiment": "e",
      "arguments": []}])",
                          R"([{"test": "t", "experiment": "e", "arguments": "--lr 1"}])", "[3]"}) {
    try {
      decode_args_check_requests(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--batch"), std::string::npos) << e.what();
    }
  }
}

TEST(ArgsCheckProtocol, AProblemWithTabsAndNewlinesStaysOneLineAndRoundTrips) {
  const std::string text = encode_args_check_problem({"a\tb", "The following argument was not expected:\n--x\t1"}) +
                           encode_args_check_problem({"c", "dataset missing: run `milarun dataset`"});
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  const auto got = decode_args_check_problems(text + "a line without a tab\n");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].test, "a?b");
  EXPECT_EQ(got[0].problem, "The following argument was not expected:?--x?1");
  EXPECT_EQ(got[1].test, "c");
  EXPECT_EQ(got[1].problem, "dataset missing: run `milarun dataset`");
  EXPECT_TRUE(decode_args_check_problems("").empty());
}
