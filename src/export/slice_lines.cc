#include "export/slice_lines.h"

namespace tt::exporter {

namespace {

// A path's line (its innermost node that is a source frame) and its names joined by ';'.
std::pair<std::optional<std::string>, std::string> Texts(
    const std::vector<analysis::CodeNode>& path) {
  std::pair<std::optional<std::string>, std::string> t;
  for (const analysis::CodeNode& n : path) {
    if (!t.second.empty()) t.second += ';';
    t.second += n.name;
    if (!n.file.empty()) t.first = n.name;
  }
  return t;
}

}  // namespace

void SliceLines::BeginTrack(uint64_t tid) {
  sites_.reset();
  tid_ = tid;
  if (code_) sites_.emplace(code_, p_, tid);
}

const SliceLines::Strings& SliceLines::Cached(const analysis::OpSites::Site& site) {
  if (!site.exact.empty()) {
    auto [it, fresh] = by_exact_.try_emplace(site.exact);
    if (fresh) it->second = Texts(analysis::ExactPath(*code_, site.exact, false));
    return it->second;
  }
  auto [it, fresh] = by_stack_.try_emplace(site.stack);
  if (fresh) it->second = Texts(analysis::SampledPath(*code_, site.stack, false));
  return it->second;
}

SliceLines::Text SliceLines::Of(const model::Slice& outer) {
  if (!sites_) return {};
  analysis::OpSites::Site site = sites_->Of(outer);
  if (site.none) return {};
  const Strings& s = Cached(site);
  return {s.first ? &*s.first : nullptr, &s.second};
}

SliceLines::Text SliceLines::OfEager(const model::Slice& s) {
  if (!sites_ || !sites_->stacks() || !sites_->Flushes()) return {};
  analysis::OpSites::Site site;
  site.none = false;
  site.stack = sites_->stacks()->Of(s.name, tid_, s.start, s.end);
  const Strings& t = Cached(site);
  return {t.first ? &*t.first : nullptr, &t.second};
}

}  // namespace tt::exporter
