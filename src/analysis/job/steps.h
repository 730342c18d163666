// The job's steps (model/job/steps.h: found, numbered, marked warm-up and selected once, in the
// model) under the names the analyses use.
#pragma once
#include "model/job/steps.h"

namespace tt::analysis {

using model::CaptureGap;
using model::CaptureGaps;
using model::DescribeStepSources;
using model::FindSteps;
using model::InWindows;
using model::SelectSteps;
using model::SelectWindows;
using model::Step;
using model::StepKeys;
using model::StepParts;
using model::StepRange;
using model::StepScans;
using model::StepSource;
using model::StepSourceName;
using model::StepTrackScan;
using model::Window;
using model::Windows;
using model::XlaRun;

}  // namespace tt::analysis
