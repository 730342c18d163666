// The Parquet table tests' skip: DuckDB and pyarrow importable, and a build that writes Parquet
// (`export --help` says "parquet  unavailable" where it was built without Apache Arrow).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

#define REQUIRE_TABLES()                                                                   \
  do {                                                                                     \
    REQUIRE_MODULE("duckdb");                                                              \
    REQUIRE_MODULE("pyarrow");                                                             \
    if (tt::test::RunCmd({TT_CLI, "export", "--help"}).out.find("parquet  unavailable") != \
        std::string::npos)                                                                 \
      GTEST_SKIP() << "built without Apache Arrow";                                        \
  } while (0)
