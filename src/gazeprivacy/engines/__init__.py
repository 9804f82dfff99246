# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Engines: run mechanisms partition-wise over datasets larger than memory.

:mod:`~gazeprivacy.engines.plan` cuts a mechanism into client, curator and release phases with
deterministic per-partition random streams; :mod:`~gazeprivacy.engines.local` runs a plan in one
process, one partition in memory at a time; ``gazeprivacy.engines.dask`` runs it on a Dask
cluster (optional extra ``distributed``). See docs/scale.md.
"""

from gazeprivacy.engines.local import (
    iter_protected,
    protect_partitioned,
    read_guarantee,
    run_plan_local,
)
from gazeprivacy.engines.plan import (
    PartitionPlan,
    PartitionStreams,
    combine_guarantees,
    partition_streams,
    plan_for,
)

__all__ = [
    "PartitionPlan",
    "PartitionStreams",
    "combine_guarantees",
    "iter_protected",
    "partition_streams",
    "plan_for",
    "protect_partitioned",
    "read_guarantee",
    "run_plan_local",
]
