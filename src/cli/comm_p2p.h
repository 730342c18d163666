// `tensortrace comm`'s point-to-point and per-step outputs beside the collectives' (comm.cc):
// TensorFlow's rendezvous pairs in the text, the JSON and the CSV, and the CSV sections of the
// socket directions and of each rank's steps.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"

namespace tt::cli {

// p2p.rendezvous and p2p.transfers (docs/comm-json.md).
nlohmann::json RendezvousJson(const analysis::P2pView& p);

// The text table of TensorFlow's rendezvous channels (nothing where there is none).
void PrintRendezvous(const analysis::P2pView& p);

// `--csv --section S`: "steps" (one row per rank and step), "p2p" (one row per socket
// direction), "rendezvous" (one row per TensorFlow transfer). False for another name.
bool PrintCsvSection(const std::string& section, const analysis::CommView& v,
                     const analysis::P2pView& p);

}  // namespace tt::cli
