#include "tools/server/slot_choice.h"

#include <vector>

#include "gtest/gtest.h"

namespace oxinfer::server {
namespace {

TEST(CommonPrefixTest, CountsTheSharedStart) {
  EXPECT_EQ(CommonPrefix({1, 2, 3}, {1, 2, 4, 5}), 2);
  EXPECT_EQ(CommonPrefix({1, 2}, {1, 2, 3}), 2);
  EXPECT_EQ(CommonPrefix({}, {1}), 0);
  EXPECT_EQ(CommonPrefix({7}, {1}), 0);
}

TEST(ChooseSlotTest, TakesTheSlotHoldingMostOfThePrompt) {
  const SlotHistory a{{1, 2, 3, 4, 5, 6}, 2}, b{{1, 2, 9}, 3}, c{{}, 0};
  EXPECT_EQ(ChooseSlot({&a, &b, &c}, {1, 2, 3, 4, 5, 6, 7, 8}, true), 0);
  EXPECT_EQ(ChooseSlot({&c, &b, &a}, {1, 2, 9, 10}, true), 1);
}

TEST(ChooseSlotTest, ASharedHeaderAloneTakesTheSlotUsedLeastRecently) {
  // Two tokens of eight in common (a template's header): another
  // conversation's cache is not given up for them.
  const SlotHistory recent{{1, 2, 3, 4}, 5}, old{{8, 8}, 2}, never{{}, 0};
  EXPECT_EQ(ChooseSlot({&recent, &old, &never}, {1, 2, 7, 7, 7, 7, 7, 7}, true), 2);
  EXPECT_EQ(ChooseSlot({&recent, &old}, {1, 2, 7, 7, 7, 7, 7, 7}, true), 1);
  // Half the prompt is enough.
  EXPECT_EQ(ChooseSlot({&old, &recent}, {1, 2, 3, 4, 7, 7, 7, 7}, true), 1);
}

TEST(ChooseSlotTest, NoPromptTakesTheSlotUsedLeastRecently) {
  const SlotHistory a{{1}, 4}, b{{2}, 1}, c{{3}, 9};
  EXPECT_EQ(ChooseSlot({&a, &b, &c}, {}, true), 1);
  EXPECT_EQ(ChooseSlot({&a}, {5}, true), 0);
}

TEST(ChooseSlotTest, TiesGoToTheSlotUsedMoreRecently) {
  const SlotHistory a{{1, 2, 3}, 1}, b{{1, 2, 3}, 7};
  EXPECT_EQ(ChooseSlot({&a, &b}, {1, 2, 3, 4}, true), 1);
}

TEST(ChooseSlotTest, WithoutRewindOnlyAWholeHistoryCounts) {
  // The first slot holds 1 2 3 9 9: a recurrent model cannot go back to 1 2 3.
  const SlotHistory partial{{1, 2, 3, 9, 9}, 5}, whole{{1, 2}, 3}, never{{}, 0};
  EXPECT_EQ(Reusable(partial, {1, 2, 3, 4, 5}, /*can_rewind=*/true), 3);
  EXPECT_EQ(Reusable(partial, {1, 2, 3, 4, 5}, /*can_rewind=*/false), 0);
  EXPECT_EQ(Reusable(partial, {1, 2, 3, 9, 9, 6}, /*can_rewind=*/false), 5);
  // The reply's last token may not have been fed: one short still counts.
  EXPECT_EQ(Reusable(partial, {1, 2, 3, 9, 4, 6}, /*can_rewind=*/false), 4);
  EXPECT_EQ(ChooseSlot({&partial, &whole, &never}, {1, 2, 3, 4}, false), 1);
  EXPECT_EQ(ChooseSlot({&partial, &whole, &never}, {1, 2, 3, 4}, true), 0);
  EXPECT_EQ(ChooseSlot({&partial, &never}, {1, 2, 3, 4}, false), 1);
}

}  // namespace
}  // namespace oxinfer::server
