// The job's pieces in model/job/: the image a chain of exec'ing shims became (images.h), and the
// aligned job (clock.h), which is a new model: the one it was made from keeps its times.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "model/job/clock.h"
#include "model/job/images.h"

namespace tt {
namespace {

struct Held {
  ProcessMeta meta;
};

Held Image(int64_t pid, uint32_t generation) {
  Held h;
  h.meta.pid = pid;
  h.meta.exec_generation = generation;
  return h;
}

TEST(JobImages, EachPidIsTheImageItBecame) {
  // pid 10 ran `env` (0), then a wrapper (1), then python (2); pid 11 never exec'd.
  std::vector<Held> procs = {Image(10, 1), Image(11, 0), Image(10, 2), Image(10, 0)};
  model::NewestImages images(procs);
  EXPECT_FALSE(images.IsNewest(procs[0].meta));
  EXPECT_TRUE(images.IsNewest(procs[1].meta));
  EXPECT_TRUE(images.IsNewest(procs[2].meta));
  EXPECT_FALSE(images.IsNewest(procs[3].meta));
  EXPECT_TRUE(images.IsNewest(Image(12, 0).meta));  // a pid it never saw is its own
}

TEST(JobClock, AlignedIsANewModelWithEachProcessShifted) {
  model::TraceModel m;
  m.processes.resize(3);
  m.processes[0].recording = "a";
  m.processes[1].recording = "b";
  m.processes[2].recording = "b";
  model::JobClock c;
  c.clocks = {{.recording = "a", .method = "reference"},
              {.recording = "b", .offset_ns = -5000, .method = "causality"}};
  c.shift_ns = {0, -5000, -4000};
  c.realtime_offset_ns = 123;
  model::TraceModel aligned = model::Aligned(m, c);
  EXPECT_EQ(aligned.processes[1].shift_ns, -5000);
  EXPECT_EQ(aligned.processes[2].shift_ns, -4000);
  EXPECT_EQ(aligned.clocks.size(), 2u);
  EXPECT_EQ(aligned.realtime_offset_ns, 123);
  EXPECT_EQ(m.processes[1].shift_ns, 0);  // the model it came from is unchanged
  EXPECT_TRUE(m.clocks.empty());
  // One recording: no clock, the model as it was.
  EXPECT_EQ(model::Aligned(m, {}).processes[1].shift_ns, 0);
  // A clock solved for other processes is refused, not applied in part.
  c.shift_ns.pop_back();
  EXPECT_THROW(model::Aligned(m, c), Error);
}

}  // namespace
}  // namespace tt
