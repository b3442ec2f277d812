"""How many worker processes a command may start: at most twice the cores, and as many as the free memory
holds (`--workers 200` started 200 interpreters and passed 4 GB). Its own module, below the CLI's commands, so
that the CLI edge (`cli_errors`) caps every `--workers` without importing a command."""

from __future__ import annotations

import os

# Parsing is most of an ingest's time and scales with processes (the loader overlaps it in this one).
WORKER_MIB = 300  # a parse worker's resident memory: LAC's ONNX session and jieba loaded (172 MiB measured) + room


def capped_workers(value: int) -> int:
    """--workers within what the machine holds: at most twice the cores and as many as the free memory
    takes at `WORKER_MIB` each, with a note when capped."""
    cores = os.cpu_count() or 1
    try:
        free_mib = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (ValueError, OSError, AttributeError):  # no sysconf figure here: cores alone
        free_mib = WORKER_MIB * 2 * cores
    cap = max(1, min(2 * cores, free_mib // WORKER_MIB))
    if value > cap:
        from dishgraph.commands._common import print_note

        print_note(f"--workers {value} capped to {cap} ({cores} cores, {free_mib:,} MiB free)")
        return cap
    return value
