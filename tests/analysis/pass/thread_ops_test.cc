// ThreadOps: the innermost framework op containing a span, from op slices gathered from several
// tracks of one thread (how a oneDNN primitive in the thread's own stream finds the TensorFlow
// op the XSpace import wrote into an imported stream of the same thread).
#include "analysis/pass/thread_ops.h"

#include <gtest/gtest.h>

namespace tt::analysis {
namespace {

enum : uint32_t { kNone = 0, kStep = 1, kMatMul = 2, kBiasAdd = 3, kRelu = 4, kInner = 5 };

TEST(ThreadOps, InnermostOpAcrossTracksOfOneThread) {
  // Two imported tracks of the thread (added out of order, as tracks are read in parallel).
  ThreadOps a, b;
  b.Add(60, 90, kBiasAdd);
  b.Add(95, 100, kRelu);
  a.Add(0, 100, kStep);
  a.Add(10, 50, kMatMul);
  a.Add(10, 20, kInner);  // same start as its parent
  a.Take(&b);
  EXPECT_TRUE(b.empty());
  a.Build();
  EXPECT_EQ(a.Innermost(12, 15), kInner);
  EXPECT_EQ(a.Innermost(25, 30), kMatMul);
  EXPECT_EQ(a.Innermost(10, 50), kMatMul);  // bounds included
  EXPECT_EQ(a.Innermost(55, 58), kStep);    // between siblings: their parent
  EXPECT_EQ(a.Innermost(65, 70), kBiasAdd);
  EXPECT_EQ(a.Innermost(40, 70), kStep);  // straddles two ops
  EXPECT_EQ(a.Innermost(96, 99), kRelu);
  EXPECT_EQ(a.Innermost(99, 101), kNone);  // runs past every op
  EXPECT_EQ(a.Innermost(120, 130), kNone);
}

TEST(ThreadOps, EmptyAndBeforeEverything) {
  ThreadOps none;
  none.Build();
  EXPECT_EQ(none.Innermost(1, 2), kNone);
  ThreadOps t;
  t.Add(100, 200, kMatMul);
  t.Build();
  EXPECT_EQ(t.Innermost(50, 60), kNone);
  EXPECT_EQ(t.Innermost(150, 160), kMatMul);
}

// Many sibling ops before the query under one long parent: the parent is still found (the
// walk goes up parents, not back over siblings).
TEST(ThreadOps, ParentFoundPastManySiblings) {
  ThreadOps t;
  t.Add(0, 1'000'000, kStep);
  for (uint64_t i = 0; i < 10'000; ++i) t.Add(i * 10 + 1, i * 10 + 5, kMatMul);
  t.Build();
  EXPECT_EQ(t.Innermost(99'996, 99'999), kStep);
  EXPECT_EQ(t.Innermost(99'992, 99'994), kMatMul);
}

}  // namespace
}  // namespace tt::analysis
