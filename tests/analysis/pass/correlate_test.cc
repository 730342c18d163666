// analysis/pass/correlate.h: the rules every consumer of links reads (views, report, exports).
#include "analysis/pass/correlate.h"

#include <gtest/gtest.h>

namespace tt::analysis {
namespace {

using layout::Category;

model::Slice SliceOf(Category c, uint32_t name, uint32_t op) {
  model::Slice s;
  s.category = c;
  s.name = name;
  s.op = op;
  return s;
}

TEST(Correlate, WhatALaunchAndAnExternalOpAre) {
  LinkIds corr{7, -1}, ext{-1, 9}, none;
  EXPECT_TRUE(IsLaunch(SliceOf(Category::kRuntimeApi, 1, 0), corr));
  EXPECT_FALSE(IsLaunch(SliceOf(Category::kRuntimeApi, 1, 0), none));
  EXPECT_FALSE(IsLaunch(SliceOf(Category::kFrameworkOp, 1, 0), corr));  // only API calls launch
  EXPECT_TRUE(IsExternalOp(SliceOf(Category::kFrameworkOp, 1, 0), ext));
  EXPECT_TRUE(IsExternalOp(SliceOf(Category::kUser, 1, 0), ext));
  EXPECT_FALSE(IsExternalOp(SliceOf(Category::kRuntimeApi, 1, 0), ext));
  EXPECT_FALSE(IsExternalOp(SliceOf(Category::kFrameworkOp, 1, 0), corr));
}

TEST(Correlate, TheExternalIdWinsOverTheLaunchsOp) {
  EXPECT_EQ(OpMethodOf({7, 9}), LinkMethod::kExternalId);
  EXPECT_EQ(OpMethodOf({7, -1}), LinkMethod::kNesting);
  EXPECT_EQ(OpMethodOf({-1, 9}), LinkMethod::kExternalId);
  EXPECT_EQ(OpMethodOf({-1, -1}), LinkMethod::kNone);

  LinkTables t;
  // Launch 7 by API 3 inside op 4, then again (a later pair wins) inside no op; launch 8 by API
  // 3 inside op 5. External id 9 names op 6.
  t.Build({{7, uint64_t{3} << 32 | 4}, {8, uint64_t{3} << 32 | 5}, {7, uint64_t{3} << 32 | 0}},
          {{9, 6}});
  DeviceLink a = LinkDevice(t, LinkIds{8, -1});
  EXPECT_TRUE(a.launched);
  EXPECT_EQ(a.api, 3u);
  EXPECT_EQ(a.launch_op, 5u);
  EXPECT_EQ(a.op, 5u);
  EXPECT_EQ(a.op_method, LinkMethod::kNesting);
  DeviceLink b = LinkDevice(t, LinkIds{8, 9});
  EXPECT_EQ(b.launch_op, 5u);  // the launch's op, whatever names the activity's op
  EXPECT_EQ(b.op, 6u);
  EXPECT_EQ(b.op_method, LinkMethod::kExternalId);
  DeviceLink c = LinkDevice(t, LinkIds{7, -1});
  EXPECT_TRUE(c.launched);
  EXPECT_EQ(c.launch_op, 0u);  // the later launch with id 7 ran in no op
  EXPECT_EQ(c.op_method, LinkMethod::kNone);
  DeviceLink d = LinkDevice(t, LinkIds{99, -1});
  EXPECT_FALSE(d.launched);
  EXPECT_EQ(d.op, 0u);
}

}  // namespace
}  // namespace tt::analysis
