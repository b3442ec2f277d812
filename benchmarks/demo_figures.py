"""The README's figures of `make demo`, kept in one file (benchmarks/results/demo.json) that
`tests/test_readme_figures.py` checks the README against: the run's time and load, the XiaChuFang sample
as read and as loaded, and the CRG rows of the report.

    dishgraph demo --db DB --out OUT     # a fresh database: every step runs
    python benchmarks/demo_figures.py OUT --json-out benchmarks/results/demo.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from _report import emit

from dishgraph import config
from dishgraph.demo import SAMPLE


def sample_read(path: Path) -> dict:
    """Records (non-blank lines) and distinct dish names in the sample file, as a reader sees it."""
    records, dishes = 0, set()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            records += 1
            try:
                dishes.add(json.loads(line).get("dish"))
            except (json.JSONDecodeError, AttributeError):
                pass
    return {"records": records, "dishes": len(dishes - {None})}


def figures(out: Path, note: str = "") -> dict:
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    step = next(s for s in report["steps"] if "XiaChuFang" in s["name"])
    m = re.match(r"(\d+) recipes of (\d+) dishes", step["detail"])
    junk = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", step["detail"].split("junk:")[-1]))
    return {
        "command": "dishgraph demo --db DB --out OUT (fresh database: every step runs); 2 cores",
        "seconds": round(report["seconds"], 1),
        "note": note,
        "skipped_steps": [s["name"] for s in report["steps"] if s["skipped"]],
        "sample": {
            "read": sample_read(config.data_dir().joinpath(*SAMPLE)),
            "loaded": {"recipes": int(m.group(1)), "dishes": int(m.group(2))} if m else None,
            "junk": junk,
        },
        "instances": results["instances"],
        "rows": results["rows"],
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="the demo's --out folder (report.json, results.json)")
    ap.add_argument("--note", default="", help="the conditions of the run (load, machine)")
    ap.add_argument("--json-out")
    a = ap.parse_args()
    emit(figures(a.out, a.note), a.json_out)
