// table.mjs prints, as a markdown table, every scenario the conformance suite
// ran: its checks passed and failed (a warning counts as a failure, as the
// suite counts it against the baseline), whether it is an expected failure
// (in the baseline), and the first failure's message.
//
// Usage: node table.mjs RESULTS_DIR BASELINE_YML
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, baselinePath] = process.argv.slice(2);
const baseline = new Set(
  readFileSync(baselinePath, "utf8")
    .split("\n")
    .map((l) => l.match(/^\s+-\s+(\S+)/))
    .filter(Boolean)
    .map((m) => m[1]),
);
const rows = [];
for (const sub of readdirSync(dir).sort()) {
  const m = sub.match(/^server-(.+)-\d{4}-\d\d-\d\dT/);
  if (!m) continue;
  const checks = JSON.parse(readFileSync(join(dir, sub, "checks.json"), "utf8"));
  const passed = checks.filter((c) => c.status === "SUCCESS").length;
  const failing = (c) => c.status === "FAILURE" || c.status === "WARNING";
  const failed = checks.filter(failing).length;
  const first = checks.find(failing);
  const expected = baseline.has(m[1]);
  let outcome = failed > 0 ? (expected ? "expected failure" : "**FAIL**") : passed > 0 ? "pass" : "pass (no check failed; informational only)";
  if (failed === 0 && expected) outcome = "**passes: stale baseline entry**";
  const why = first ? (first.errorMessage ?? first.description ?? "").replace(/\|/g, "\\|").slice(0, 100) : "";
  rows.push(`| ${m[1]} | ${passed} | ${failed} | ${outcome} | ${why} |`);
}
console.log("| scenario | checks passed | failed or warned | outcome | first failure |");
console.log("|---|---:|---:|---|---|");
for (const r of rows) console.log(r);
const pass = rows.filter((r) => r.includes("| pass")).length;
console.log(`\n${rows.length} scenarios: ${pass} pass, ${rows.length - pass} in the baseline or failing.`);
