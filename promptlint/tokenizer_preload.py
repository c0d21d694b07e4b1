"""Imported by the fork server of the workers (`engine.WORKER_PRELOAD`): the o200k_base tokenizer,
built once there, is in every worker from its start (`tokens.encoding` keeps it).

Building it costs about 0.2 s of CPU and 49 MiB of memory; built in each worker, it was paid
again by every worker that replaced one past its memory bound (five to seven workers a run on the
corpus). Forked, its pages stay shared between the workers: none of them writes to it. A build
that fails leaves nothing behind: the worker that needs it builds it and reports the error there.
"""
from __future__ import annotations

from . import tokens

try:
    tokens.encoding("o200k_base")
except Exception:  # noqa: BLE001 (reported by the worker that counts with it)
    pass
