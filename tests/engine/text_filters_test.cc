#include "core/engine/text_filters.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace oxinfer::engine {
namespace {

// Feeds pieces one at a time and collects what comes out.
std::string Stream(StopStringFilter& f, const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += f.Feed(p);
  if (!f.stopped()) out += f.Flush();
  return out;
}

TEST(StopStringFilterTest, CutsBeforeTheFirstStopAcrossPieces) {
  StopStringFilter f({"END", "stop"});
  EXPECT_EQ(f.Feed("hello E"), "hello ");  // "E" may start "END"
  EXPECT_EQ(f.Feed("N"), "");
  EXPECT_EQ(f.Feed("Dmore"), "");
  EXPECT_TRUE(f.stopped());
  EXPECT_EQ(f.Feed("after"), "");
}

TEST(StopStringFilterTest, ReleasesAPartialMatchThatDoesNotComplete) {
  StopStringFilter f({"END"});
  EXPECT_EQ(Stream(f, {"a", "EN", "x", "E"}), "aENxE");
  EXPECT_FALSE(f.stopped());
}

TEST(StopStringFilterTest, EarliestStopWinsAndEmptyStopsAreIgnored) {
  StopStringFilter f({"", "cd", "b"});
  EXPECT_EQ(Stream(f, {"abcd"}), "a");
  StopStringFilter none({});
  EXPECT_EQ(Stream(none, {"ab", "c"}), "abc");
}

struct ChannelRun {
  Channel channel;
  std::string text;
  bool operator==(const ChannelRun& o) const { return channel == o.channel && text == o.text; }
};

std::vector<ChannelRun> Split(ReasoningSplitter& s, const std::vector<std::string>& pieces) {
  std::vector<ChannelRun> runs;
  auto emit = [&](Channel c, absl::string_view t) {
    if (!runs.empty() && runs.back().channel == c) {
      runs.back().text.append(t.data(), t.size());
    } else {
      runs.push_back({c, std::string(t)});
    }
  };
  for (const auto& p : pieces) s.Feed(p, emit);
  s.Flush(emit);
  return runs;
}

TEST(ReasoningSplitterTest, MarkersSplitChannelsAndDisappear) {
  ReasoningSplitter s("<think>", "</think>", false);
  const std::vector<ChannelRun> want = {
      {Channel::kContent, "a"}, {Channel::kReasoning, "why"}, {Channel::kContent, "b"}};
  EXPECT_EQ(Split(s, {"a<th", "ink>w", "hy</", "think", ">b"}), want);
}

TEST(ReasoningSplitterTest, AnEmptyBlockStillSwitchesChannels) {
  ReasoningSplitter s("<think>", "</think>", false);
  const std::vector<ChannelRun> want = {
      {Channel::kContent, "a"}, {Channel::kReasoning, ""}, {Channel::kContent, "b"}};
  EXPECT_EQ(Split(s, {"a<think></think>b"}), want);
}

TEST(ReasoningSplitterTest, StartsInReasoningWhenThePromptOpenedIt) {
  ReasoningSplitter s("<think>", "</think>", true);
  const std::vector<ChannelRun> want = {{Channel::kReasoning, "x"}, {Channel::kContent, "y"}};
  EXPECT_EQ(Split(s, {"x</think>y"}), want);
}

TEST(ReasoningSplitterTest, WithoutMarkersAllIsContent) {
  ReasoningSplitter s("", "", false);
  const std::vector<ChannelRun> want = {{Channel::kContent, "<think>x"}};
  EXPECT_EQ(Split(s, {"<think>", "x"}), want);
}

TEST(ReasoningSplitterTest, AnUnfinishedMarkerIsTextAtTheEnd) {
  ReasoningSplitter s("<think>", "</think>", false);
  const std::vector<ChannelRun> want = {{Channel::kContent, "a<thi"}};
  EXPECT_EQ(Split(s, {"a<thi"}), want);
}

TEST(PartialSuffixMatchTest, LongestProperPrefix) {
  EXPECT_EQ(PartialSuffixMatch("xxab", "abc"), 2u);
  EXPECT_EQ(PartialSuffixMatch("xxabc", "abc"), 0u);  // whole matches are found, not held
  EXPECT_EQ(PartialSuffixMatch("", "abc"), 0u);
  EXPECT_EQ(PartialSuffixMatch("aa", "aab"), 2u);
}

}  // namespace
}  // namespace oxinfer::engine
