"""Nothing reaches the network unless asked: the libraries dishgraph loads are told so before first use.

Hugging Face's hub and transformers look for newer files and send telemetry unless told to stay offline;
onnxruntime (the LAC segmenter's engine) uploads telemetry from a thread of its own (seen as lookups of
its events host while `eval crg` ran), which only a variable set before its first use turns off.
`quiet_dependencies` sets each library's documented off switch as a default, so a user who wants the hub
exports the variable themselves (``HF_HUB_OFFLINE=0``); `dishgraph data fetch` asks for the network through
its own downloader only.
tests/test_offline.py runs the README's commands with every outside lookup refused and counted (zero)."""

from __future__ import annotations

import os

# Each library's own switch; values are defaults (an exported variable wins).
OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",  # huggingface_hub: no requests to the hub (local paths still load)
    "TRANSFORMERS_OFFLINE": "1",  # transformers' older switch, same meaning
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
    "DO_NOT_TRACK": "1",  # the cross-tool convention some libraries read
    # onnxruntime >= 1.29 on Linux: 1DS telemetry (a ProcessInfo event when its environment is created, before
    # `disable_telemetry_events` can run, then session events; a device-id file on disk). Read once, at start.
    "ORT_DISABLE_TELEMETRY": "1",
    "ORT_TELEMETRY_DISABLED": "1",  # the spelling of onnxruntime's later releases
}


def quiet_dependencies() -> None:
    """Set every dependency's offline / no-telemetry switch as a default (cheap: imports nothing)."""
    for name, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(name, value)
