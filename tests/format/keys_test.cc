// The catalogue of argument keys and event names (src/format/keys.h): every entry is documented
// in docs/trace-format.md (XSpace stat names there or in docs/xspace-export.md), no name is
// listed twice, the free rule, and the model's lookups by key.
#include "format/keys.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/files.h"
#include "model/args.h"

namespace tt {
namespace {

std::string Doc(const char* name) { return ReadFile(std::string(TT_SOURCE_DIR) + "/docs/" + name); }

// Whether the page names `key` as code: `key`, or inside a code span that starts with it
// (`MemoryAllocation` / `MemoryDeallocation`), or as a quoted JSON-like name.
bool Mentions(const std::string& doc, std::string_view key) {
  std::string k(key);
  return doc.find("`" + k + "`") != std::string::npos ||
         doc.find("`" + k + "/") != std::string::npos ||
         doc.find("/" + k + "`") != std::string::npos;
}

TEST(Keys, EveryArgumentKeyIsDocumented) {
  std::string doc = Doc("trace-format.md");
  for (std::string_view k : keys::kArgKeys) EXPECT_TRUE(Mentions(doc, k)) << k;
}

TEST(Keys, EveryEventNameIsDocumented) {
  std::string doc = Doc("trace-format.md");
  for (std::string_view k : keys::kEventNames) EXPECT_TRUE(Mentions(doc, k)) << k;
}

TEST(Keys, EveryXSpaceStatIsDocumented) {
  std::string doc = Doc("trace-format.md") + Doc("xspace-export.md");
  for (std::string_view k : keys::xstat::kAll) EXPECT_TRUE(Mentions(doc, k)) << k;
}

TEST(Keys, NoNameIsListedTwice) {
  std::set<std::string_view> args(std::begin(keys::kArgKeys), std::end(keys::kArgKeys));
  EXPECT_EQ(args.size(), std::size(keys::kArgKeys));
  std::set<std::string_view> names(std::begin(keys::kEventNames), std::end(keys::kEventNames));
  EXPECT_EQ(names.size(), std::size(keys::kEventNames));
  std::set<std::string_view> stats(std::begin(keys::xstat::kAll), std::end(keys::xstat::kAll));
  EXPECT_EQ(stats.size(), std::size(keys::xstat::kAll));
}

TEST(Keys, FreeRule) {
  EXPECT_TRUE(keys::IsFreeEvent(keys::kMemoryDeallocation));
  EXPECT_TRUE(keys::IsFreeEvent("free"));
  EXPECT_TRUE(keys::IsFreeEvent("BFCDeallocation"));
  EXPECT_FALSE(keys::IsFreeEvent(keys::kMemoryAllocation));
  EXPECT_FALSE(keys::IsFreeEvent("freeze"));
  EXPECT_FALSE(keys::IsFreeEvent(""));
}

TEST(Keys, KeyIdsResolvesInternedIds) {
  model::Process p;
  p.names = {"", "bytes", "addr", "", "bytes", "op"};
  auto [bytes, addr, corr, op] =
      model::KeyIds(p, {keys::kBytes, keys::kAddr, keys::kCorrelationId, keys::kOp});
  EXPECT_EQ(bytes, 4u);  // the highest id where a text repeats
  EXPECT_EQ(addr, 2u);
  EXPECT_EQ(corr, 0u);
  EXPECT_EQ(op, 5u);
  EXPECT_EQ(model::KeyId(p, keys::kAddr), 2u);
  EXPECT_EQ(model::KeyId(p, ""), 0u);
}

TEST(Keys, ArgReads) {
  // Self-described arguments: an i8, an f64 and a string.
  Arg in[3];
  in[0].key = 1;
  in[0].v.i = -5;
  in[1].key = 2;
  in[1].type = layout::ArgType::kFloat;
  in[1].v.f = 1e300;
  in[2].key = 3;
  in[2].type = layout::ArgType::kString;
  in[2].v.str = 7;
  uint8_t buf[64];
  PutArgs(buf, in, 3);
  model::ArgsView a{buf + 1, 3, nullptr};
  EXPECT_EQ(model::ArgInt(a, 1), -5);
  EXPECT_FALSE(model::ArgInt(a, 2));  // past int64's range
  EXPECT_FALSE(model::ArgInt(a, 3));  // a string
  EXPECT_FALSE(model::ArgInt(a, 0));
  EXPECT_FALSE(model::ArgInt(a, 9));
  EXPECT_EQ(model::ArgStr(a, 3), 7u);
  EXPECT_EQ(model::ArgStr(a, 1), 0u);
  Arg x;
  EXPECT_TRUE(model::ArgNumber(a, 2, &x));
  EXPECT_FALSE(model::ArgNumber(a, 3, &x));
}

}  // namespace
}  // namespace tt
