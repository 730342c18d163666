"""tables.py: a dataset laid out as `export --format parquet` writes it (TABLE/rank=R/), read as
DataFrames and through DuckDB, and one of another schema version refused in one line."""
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")
pytest.importorskip("pandas")

from _tensortrace import tables  # noqa: E402


def write(root, table, rank, rows, version=b"1"):
    t = pa.table(rows).replace_schema_metadata(
        {b"tensortrace.schema_version": version, b"tensortrace.table": table.encode()})
    d = root / table / f"rank={rank}"
    d.mkdir(parents=True, exist_ok=True)
    pq.write_table(t, d / "part-1-0.parquet")


def dataset(root, version=b"1"):
    for rank in (0, 1):
        write(root, "slices", rank, {"pid": [10 + rank] * 3, "op_type": ["MatMul", "Add", "x"],
                                     "is_op": [True, True, False], "dur_ns": [5, 2, 9],
                                     "self_ns": [4, 2, 9]}, version)
        write(root, "steps", rank, {"step": [0, 1], "pid": [10 + rank] * 2,
                                    "duration_ns": [100, 110 + rank]}, version)
    return root


def test_dataframes_and_sql_over_the_ranks(tmp_path):
    t = tables.open(dataset(tmp_path / "out"))
    assert sorted(t.ops.op_type.unique()) == ["Add", "MatMul"]
    assert sorted(t.slices["rank"].unique()) == [0, 1]
    assert t.arrow("steps").num_rows == 4
    got = t.sql("SELECT op_type, sum(self_ns) AS s FROM ops GROUP BY 1 ORDER BY 1")
    assert got.to_dict("list") == {"op_type": ["Add", "MatMul"], "s": [4, 8]}
    assert t.sql("SELECT max(duration_ns) AS m FROM steps WHERE rank = 1").m[0] == 111


def test_another_schema_version_is_refused_in_one_line(tmp_path):
    out = dataset(tmp_path / "old", version=b"0")
    with pytest.raises(tables.TablesError) as e:
        tables.open(out)
    assert "schema version 0; this tensortrace reads version 1" in str(e.value)
    assert "\n" not in str(e.value)


def test_sql_main_prints_one_line_for_a_bad_query(tmp_path, capsys):
    out = dataset(tmp_path / "out")
    assert tables.main(["sql", str(out), "SELECT nope FROM steps"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tensortrace sql: ") and err.count("\n") == 1
    assert tables.main(["sql", str(out), "SELECT count(*) AS n FROM ops", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "n\n4\n"
