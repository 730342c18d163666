// The what-if table (whatif_kind.h): one line per kind, in the order the help lists them;
// each entry is defined in its own file. ParseWhatIf tries them in this order, REGEX=FACTOR
// (which takes any NAME=FACTOR) last.
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

const WhatIfKind& ScaleWhatIf();         // whatif_scale.cc
const WhatIfKind& ScopeWhatIf();         // whatif_scope.cc
const WhatIfKind& LineWhatIf();          // whatif_line.cc
const WhatIfKind& InputWhatIf();         // whatif_input.cc
const WhatIfKind& CommWhatIf();          // whatif_comm.cc
const WhatIfKind& OverlapWhatIf();       // whatif_overlap.cc
const WhatIfKind& TensorFusionWhatIf();  // whatif_tensor_fusion.cc
const WhatIfKind& OpFusionWhatIf();      // whatif_op_fusion.cc
const WhatIfKind& PrecisionWhatIf();     // whatif_precision.cc
const WhatIfKind& RankWhatIf();          // whatif_rank.cc
const WhatIfKind& BatchWhatIf();         // whatif_batch.cc

const std::vector<const WhatIfKind*>& WhatIfKinds() {
  static const std::vector<const WhatIfKind*> table = {
      &ScaleWhatIf(),   &ScopeWhatIf(),        &LineWhatIf(),     &InputWhatIf(),     &CommWhatIf(),
      &OverlapWhatIf(), &TensorFusionWhatIf(), &OpFusionWhatIf(), &PrecisionWhatIf(), &RankWhatIf(),
      &BatchWhatIf(),
  };
  return table;
}

}  // namespace tt::analysis::replay
