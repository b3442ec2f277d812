#!/usr/bin/env node
// Lint Cypher statements with Neo4j's own Cypher 5 parser and semantic analyser
// (@neo4j-cypher/language-support: the ANTLR Cypher grammar plus Neo4j's front-end compiled to JS).
//
// One process lints every statement, because loading and warming the analyser costs far more than one query.
//
// stdin (JSON):
//   { "schema":  { "labels": [...], "relationshipTypes": [...], "propertyKeys": [...],
//                  "graphSchema": [{ "from": "Dish", "to": "Recipe", "relType": "HAS_RECIPE" }, ...] },
//     "queries": [{ "name": "load_dishes", "text": "UNWIND $rows AS r ...", "params": ["rows"] }, ...] }
//   "params" are the parameters the query declares; using any other one is an error.
// stdout (JSON):
//   { "linter": "@neo4j-cypher/language-support@VERSION", "cypherVersion": "CYPHER 5", "builtinFunctions": N,
//     "results": [{ "name", "diagnostics": [{ "severity", "rule", "message", "line", "column", "offset" }] }] }
//   line/column are 1-based. severity: error | warning | info | hint.
//   Exit status: 0 when the run worked (whatever the diagnostics), 2 when the input could not be read.
import { readFileSync } from 'node:fs';

import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const CYPHER_VERSION = 'CYPHER 5';
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

// The package's exports map hides package.json, so read it from node_modules next to this script.
function packageVersion() {
  const url = new URL('./node_modules/@neo4j-cypher/language-support/package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(url, 'utf8'));
  return `${pkg.name}@${pkg.version}`;
}

// The package ships a function registry dumped from a Neo4j server (testData.mockSchema). Keep only the
// built-in functions: our compose file runs Neo4j Community without plugins, so an APOC or GDS call is an error.
function builtinFunctions() {
  const all = testData.mockSchema.functions[CYPHER_VERSION] ?? {};
  return Object.fromEntries(Object.entries(all).filter(([, fn]) => fn.isBuiltIn));
}

function builtinProcedures() {
  const all = testData.mockSchema.procedures[CYPHER_VERSION] ?? {};
  return Object.fromEntries(
    Object.entries(all).filter(([name]) => /^(db|dbms|tx)\./.test(name)),
  );
}

// Which rule produced a diagnostic: lets the caller tell syntax from semantics from schema problems.
function ruleOf(message) {
  if (/^(Invalid input|Mismatched input|Extraneous input|Missing |Unexpected end of input)/.test(message))
    return 'syntax';
  if (/^(Label|Relationship type) .* is not present in the database/.test(message)) return 'schema-whitelist';
  if (/ is not present in the database\. Make sure/.test(message) && !/^(Function|Procedure) /.test(message))
    return 'schema-property';
  if (/^\[:.*\] has no |^\(:.*\) has no /.test(message)) return 'schema-path';
  if (/^Parameter \$.* is not defined\./.test(message)) return 'undeclared-parameter';
  if (/^(Function|Procedure) .* is not present in the database/.test(message)) return 'unknown-function';
  if (/cartesian product/.test(message)) return 'cartesian-product';
  return 'semantic';
}

// Work around a package bug: its property collector charges every property key inside a node pattern to that
// node, so `MATCH (a:Step {id: r.a})` reports a missing *node* property `a` although `r` is an UNWIND row.
// For `x.key` look at the variable before the dot and keep the warning only when that is a node or relationship.
function isMisattributedProperty(text, offset, symbolTable) {
  if (offset == null) return false;
  const m = /([A-Za-z_][A-Za-z0-9_]*|`[^`]+`)\s*\.\s*$/.exec(text.slice(0, offset));
  if (!m) return false; // a map key in a pattern, `{key: ...}`: the package attributes it correctly
  const name = m[1].replace(/^`|`$/g, '');
  const symbol = (symbolTable ?? []).find((s) => s.variable === name);
  const isEntity = symbol && symbol.types.length > 0 &&
    symbol.types.every((t) => t === 'Node' || t === 'Relationship');
  return !isEntity;
}

function lintOne(query, baseSchema) {
  const parameters = Object.fromEntries((query.params ?? []).map((p) => [p, null]));
  const { diagnostics, symbolTables } = lintCypherQuery(query.text, { ...baseSchema, parameters }, {
    consoleCommandsEnabled: false,
  });
  const kept = diagnostics.filter((d) => !(ruleOf(d.message) === 'schema-property' &&
    isMisattributedProperty(query.text, d.offsets?.start, symbolTables?.[0])));
  return kept.map((d) => {
    const rule = ruleOf(d.message);
    // A label or relationship type outside dishgraph's schema is an error here, not the package's warning:
    // the schema is the whitelist, and the embedded backend would reject the query anyway.
    const severity = rule === 'schema-whitelist' ? 'error' : SEVERITY[d.severity] ?? 'error';
    return {
      severity,
      rule,
      message: d.message,
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      offset: d.offsets?.start ?? null,
    };
  });
}

function main() {
  let input;
  try {
    input = JSON.parse(readFileSync(0, 'utf8'));
  } catch (err) {
    process.stderr.write(`cypher-lint: stdin is not JSON: ${err.message}\n`);
    process.exit(2);
  }
  if (!Array.isArray(input.queries)) {
    process.stderr.write('cypher-lint: stdin JSON needs a "queries" list of {name, text, params}\n');
    process.exit(2);
  }
  const functions = builtinFunctions();
  const schema = input.schema ?? {};
  const baseSchema = {
    defaultLanguage: CYPHER_VERSION,
    functions: { [CYPHER_VERSION]: functions },
    procedures: { [CYPHER_VERSION]: builtinProcedures() },
    ...(schema.labels ? { labels: schema.labels } : {}),
    ...(schema.relationshipTypes ? { relationshipTypes: schema.relationshipTypes } : {}),
    ...(schema.propertyKeys ? { propertyKeys: schema.propertyKeys } : {}),
    ...(schema.graphSchema ? { graphSchema: schema.graphSchema } : {}),
  };
  const results = input.queries.map((q) => {
    try {
      return { name: q.name, diagnostics: lintOne(q, baseSchema) };
    } catch (err) {
      // The analyser itself failed on this text: report it as an error of that query, keep linting the rest.
      return {
        name: q.name,
        diagnostics: [{ severity: 'error', rule: 'linter-crash', message: String(err?.stack ?? err),
                        line: 1, column: 1, offset: 0 }],
      };
    }
  });
  process.stdout.write(JSON.stringify({
    linter: packageVersion(),
    cypherVersion: CYPHER_VERSION,
    builtinFunctions: Object.keys(functions).length,
    results,
  }) + '\n');
}

main();
