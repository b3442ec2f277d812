"""Lint every Cypher statement Neo4j will run with Neo4j's own Cypher 5 parser and semantic analyser.

The named queries share one text between LadybugDB and Neo4j, and the embedded test suite only proves the
Ladybug side. ``tools/cypher-lint/lint.mjs`` (npm ``@neo4j-cypher/language-support``) checks the Neo4j side
without a server: syntax, semantics (undefined variables, type errors, aggregation rules), unknown
functions, parameters the ``// params:`` header does not declare, and labels/relationship types outside
``dishgraph.graph.schema``. One node process lints all statements, because warming the analyser dominates.

``python -m dishgraph.graph.lint`` prints a table and exits 1 on any error (warnings do not fail).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dishgraph.graph import queries, schema

TOOL_DIR = Path(__file__).resolve().parents[2] / "tools" / "cypher-lint"
PACKAGE = "@neo4j-cypher/language-support"


class LinterUnavailable(RuntimeError):
    """node or tools/cypher-lint/node_modules is missing (run `make tools/cypher-lint/node_modules`)."""


@dataclass(frozen=True)
class Statement:
    """One text Neo4j will run, with where it comes from (for messages) and the parameters it declares."""

    name: str
    text: str
    params: tuple[str, ...] = ()
    path: Path | None = None
    line_map: tuple[int, ...] = ()  # text line k (1-based) lives on file line line_map[k-1]
    col_shift: int = 0  # columns stripped from the first text line


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # error | warning | info | hint
    rule: str  # syntax | semantic | schema-whitelist | undeclared-parameter | unknown-function | ...
    message: str
    line: int  # in the file when the statement has one, else in the text
    column: int


@dataclass
class LintResult:
    statement: Statement
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def location(self, d: Diagnostic) -> str:
        where = _display_path(self.statement.path) if self.statement.path else self.statement.name
        return f"{where}:{d.line}:{d.column}"


@dataclass
class LintReport:
    linter: str
    cypher_version: str
    seconds: float
    results: list[LintResult]

    @property
    def errors(self) -> list[tuple[LintResult, Diagnostic]]:
        return [(r, d) for r in self.results for d in r.errors]

    @property
    def warnings(self) -> list[tuple[LintResult, Diagnostic]]:
        return [(r, d) for r in self.results for d in r.warnings]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "linter": self.linter,
            "cypher_version": self.cypher_version,
            "seconds": round(self.seconds, 2),
            "statements": len(self.results),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "results": [
                {
                    "name": r.statement.name,
                    "path": _display_path(r.statement.path) if r.statement.path else None,
                    "diagnostics": [asdict(d) for d in r.diagnostics],
                }
                for r in self.results
            ],
        }


# --- what gets linted -----------------------------------------------------------------------------------


def _declared_params(path: Path, body_params: tuple[str, ...]) -> tuple[str, ...]:
    """The ``// params:`` header's parameters; without a header, the ones the body uses (nothing to check)."""
    header = [
        ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.lstrip().startswith("//") and "params:" in ln
    ]
    if not header:
        return body_params
    return tuple(sorted(set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", " ".join(header)))))


def _line_map(path: Path) -> tuple[tuple[int, ...], int]:
    """Map lines of NamedQuery.text (comment lines dropped, stripped) back to lines of the file."""
    kept = [
        (i + 1, ln)
        for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines())
        if not ln.lstrip().startswith("//")
    ]
    lead = 0
    while lead < len(kept) and not kept[lead][1].strip():
        lead += 1
    rest = kept[lead:]
    shift = len(rest[0][1]) - len(rest[0][1].lstrip()) if rest else 0
    return tuple(n for n, _ in rest), shift


def statement_for(q: queries.NamedQuery) -> Statement:
    line_map, shift = _line_map(q.path)
    return Statement(q.name, q.text, _declared_params(q.path, q.params), q.path, line_map, shift)


def statement_from_file(path: str | Path) -> Statement:
    """Any ``.cypher`` file, read the way the named-query loader reads it (for drafts outside the package)."""
    return statement_for(queries._parse(Path(path)))


def named_statements(backend: str = "neo4j") -> list[Statement]:
    """Each named query exactly as this backend runs it (its ``.neo4j`` variant where one exists)."""
    return [statement_for(q) for q in queries.for_backend(backend)]


def ddl_statements() -> list[Statement]:
    out = []
    for i, text in enumerate(schema.neo4j_ddl()):
        m = re.match(r"CREATE\s+(?:CONSTRAINT|INDEX)\s+(\w+)", text)
        out.append(Statement(f"ddl:{m.group(1) if m else i}", text))
    return out


def schema_for_linter() -> dict[str, Any]:
    """dishgraph's schema in the shape the package's DbSchema wants (labels, types, keys, endpoints)."""
    props = sorted({p for n in schema.NODES for p in n.props} | {p for r in schema.RELS for p in r.props})
    return {
        "labels": [n.label for n in schema.NODES],
        "relationshipTypes": [r.type for r in schema.RELS],
        "propertyKeys": props,
        "graphSchema": [{"from": a, "to": b, "relType": r.type} for r in schema.RELS for a, b in r.ends],
    }


# --- running the linter ---------------------------------------------------------------------------------


def linter_problem(tool_dir: Path = TOOL_DIR) -> str | None:
    """Why the linter cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "`node` is not on PATH (Node.js >= 20 is needed for tools/cypher-lint)"
    if not (tool_dir / "lint.mjs").is_file():
        return f"{tool_dir / 'lint.mjs'} is missing (installed without the source tree?)"
    if not (tool_dir / "node_modules" / PACKAGE / "package.json").is_file():
        return (
            f"{tool_dir / 'node_modules'} lacks {PACKAGE}; run `make tools/cypher-lint/node_modules` "
            f"(cd tools/cypher-lint && npm install)"
        )
    return None


def lint_statements(statements: list[Statement], tool_dir: Path = TOOL_DIR, timeout: float = 600) -> LintReport:
    """Lint these statements in one node process; raises LinterUnavailable when it cannot run."""
    problem = linter_problem(tool_dir)
    if problem:
        raise LinterUnavailable(problem)
    payload = {
        "schema": schema_for_linter(),
        "queries": [{"name": s.name, "text": s.text, "params": list(s.params)} for s in statements],
    }
    start = time.perf_counter()
    proc = subprocess.run(
        ["node", str(tool_dir / "lint.mjs")],
        input=json.dumps(payload, ensure_ascii=False),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tool_dir,
        timeout=timeout,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{tool_dir / 'lint.mjs'} failed (exit {proc.returncode}): {proc.stderr.strip()}")
    out = json.loads(proc.stdout)
    results = []
    for stmt, res in zip(statements, out["results"], strict=True):
        if res["name"] != stmt.name:
            raise RuntimeError(f"linter answered {res['name']!r} for statement {stmt.name!r}")
        results.append(LintResult(stmt, [_to_file_position(stmt, d) for d in res["diagnostics"]]))
    return LintReport(out["linter"], out["cypherVersion"], seconds, results)


def _to_file_position(stmt: Statement, d: dict[str, Any]) -> Diagnostic:
    line, col = int(d.get("line") or 1), int(d.get("column") or 1)
    if stmt.line_map:
        if line == 1:
            col += stmt.col_shift
        line = stmt.line_map[min(line, len(stmt.line_map)) - 1]
    return Diagnostic(d["severity"], d["rule"], d["message"], line, col)


def lint_shipped(tool_dir: Path = TOOL_DIR) -> LintReport:
    """Every named query Neo4j runs plus the Neo4j DDL."""
    return lint_statements(named_statements("neo4j") + ddl_statements(), tool_dir)


def _display_path(path: Path) -> str:
    try:
        return str(path.relative_to(TOOL_DIR.parents[1]))
    except ValueError:
        return str(path)


# --- command line ---------------------------------------------------------------------------------------


def _short(d: Diagnostic, width: int = 110) -> str:
    if d.rule == "cartesian-product":  # Neo4j's notification is a paragraph; its gist and the identifier
        m = re.search(r"\(identifier is: (.*)\)\s*$", d.message)
        return "disconnected patterns make a cartesian product" + (f" (identifier {m.group(1)})" if m else "")
    first = d.message.split(". ")[0].strip()
    return first if len(first) <= width else first[: width - 1] + "…"


def print_report(report: LintReport, show_warnings: bool = True) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    rows = [
        (r, d)
        for r in report.results
        for d in r.diagnostics
        if d.severity == "error" or (show_warnings and d.severity == "warning")
    ]
    if rows:
        table = Table(title=f"Cypher lint ({report.linter}, {report.cypher_version})")
        table.add_column("where (file:line:col)", overflow="fold")
        table.add_column("severity")
        table.add_column("rule", overflow="fold")
        table.add_column("message", overflow="fold", ratio=1)
        for r, d in rows:
            colour = "red" if d.severity == "error" else "yellow"
            where = r.location(d).removeprefix("dishgraph/cypher/")
            table.add_row(where, f"[{colour}]{d.severity}[/{colour}]", d.rule, _short(d))
        if console.is_terminal:
            console.print(table)
        else:  # logs (CI): one compiler-style line per diagnostic, never folded
            for r, d in rows:
                print(f"{r.location(d)}: {d.severity} [{d.rule}] {_short(d)}")
    verdict = "[green]ok[/green]" if report.ok else "[red]FAILED[/red]"
    console.print(
        f"{verdict}: {len(report.results)} statements, {len(report.errors)} errors, "
        f"{len(report.warnings)} warnings in {report.seconds:.1f} s ({report.linter})"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m dishgraph.graph.lint",
        description="Lint dishgraph's Neo4j Cypher with Neo4j's Cypher 5 analyser.",
    )
    ap.add_argument(
        "files", nargs="*", type=Path, help="Lint these .cypher files instead of every shipped query and the DDL."
    )
    ap.add_argument("--json", action="store_true", help="Print the full report as JSON.")
    ap.add_argument("--errors-only", action="store_true", help="Leave warnings out of the table.")
    args = ap.parse_args(argv)
    try:
        missing = [f for f in args.files if not f.is_file()]
        if missing:
            print(f"error: no such file: {', '.join(map(str, missing))}", file=sys.stderr)
            return 2
        report = lint_statements([statement_from_file(f) for f in args.files]) if args.files else lint_shipped()
    except LinterUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print_report(report, show_warnings=not args.errors_only)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
