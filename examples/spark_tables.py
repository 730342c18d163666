#!/usr/bin/env python3
"""The job's tables in Apache Spark, for jobs past one machine (docs/tables.md): the per-step
breakdown of every rank, each step's slowest rank, and the straggler table, from the Parquet
dataset `tensortrace export DIR... --format parquet -o OUT` writes (or many ranks' exports
copied under one OUT: each table is partitioned by rank).

    spark-submit examples/spark_tables.py OUT [--json]       # or: python3 examples/spark_tables.py

Runs in Spark's local mode unless SPARK_MASTER (or spark-submit --master) says otherwise. With
--json it prints {"steps": [...], "slowest": [...], "stragglers": [...], "collectives": [...]}
under the names of `stats --view step --json` (micros) and `comm --json` (ns)."""
import argparse
import json
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

PARTS = ["input", "compile", "host_compute", "runtime", "host_idle", "device_compute", "copies",
         "communication", "device_idle_host_bound", "device_idle_waiting"]


def step_breakdown(steps):
    """Per rank, process and step: each part of the step in microseconds (the step view's)."""
    cols = [(F.col(f"{p}_ns") / 1000).alias(f"{p}_micros") for p in ["duration"] + PARTS]
    return steps.select("rank", "pid", "step", "source", "warmup", *cols)


def slowest(steps):
    """Per step number: the slowest rank, its time, and the spread over the ranks."""
    w = steps.groupBy("step").agg(
        F.max_by("rank", "duration_ns").alias("slowest_rank"),
        (F.max("duration_ns") / 1000).alias("max_micros"),
        ((F.max("duration_ns") - F.min("duration_ns")) / 1000).alias("spread_micros"),
        F.count("*").alias("ranks"))
    return w.orderBy("step")


def stragglers(coll):
    """Per rank: the instances it entered last in, and its own waits (comm's ranks)."""
    return coll.groupBy("rank").agg(
        F.sum(F.col("straggler").cast("long")).alias("straggler"),
        F.sum("wait_ns").alias("wait_ns"),
        F.count("*").alias("calls")).orderBy("rank")


def collectives(coll):
    """Per collective: instances, the ranks' waits added (comm's collectives)."""
    return coll.groupBy("collective").agg(
        F.countDistinct("instance").alias("instances"),
        F.sum("wait_ns").alias("wait_ns")).orderBy(F.desc("wait_ns"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    spark = (SparkSession.builder.appName("tensortrace-tables")
             .master(os.environ.get("SPARK_MASTER", "local[2]"))
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4")  # small tables: not 200 tasks
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    steps = spark.read.parquet(os.path.join(a.dataset, "steps"))
    coll = spark.read.parquet(os.path.join(a.dataset, "collectives"))
    out = {"steps": step_breakdown(steps), "slowest": slowest(steps),
           "stragglers": stragglers(coll), "collectives": collectives(coll)}
    if a.json:
        print(json.dumps({k: [r.asDict() for r in v.collect()] for k, v in out.items()},
                         indent=1))
    else:
        for name, df in out.items():
            print(f"== {name}")
            df.show(50, truncate=False)
    spark.stop()


if __name__ == "__main__":
    main()
