// table.mjs reads what the conformance suite wrote, run once per protocol
// revision with the suite's own requirement set (--requirements REVISION,
// each into a folder named by the revision), and prints, for each revision,
// every scenario the set ran as a markdown table: whether the set scores it,
// its checks passed, failed and warned, its outcome, the class of its
// failures (expected-failures.yml) and the first failure's message; then the
// count the suite gives, "REVISION: P of N pass" (a scored scenario passes
// when none of its checks failed and one passed; a warning does not fail it,
// as the suite counts it), and the failures by class.
//
// It exits 1 when a failure, or a warning, has no class (also in a scenario
// the set runs but does not score, which the suite's baseline does not
// judge), when an entry passes at a revision that runs it (a stale entry, as
// the suite's baseline has it), and when an entry names nothing the suite
// ran.
//
// Usage:
//   node table.mjs SUITE_DIR RESULTS_DIR EXPECTED_FAILURES_YML
//   node table.mjs baseline SUITE_DIR EXPECTED_FAILURES_YML
// SUITE_DIR is the installed @modelcontextprotocol/conformance (its
// requirements/ and its yaml package); the second form prints the entries
// in the suite's baseline format, for its --expected-failures.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const args = process.argv.slice(2);
if (args[0] === "baseline") {
  const [suiteDir, failuresPath] = args.slice(1);
  const entries = readClasses(yamlOf(suiteDir), failuresPath);
  console.log("server:");
  for (const e of entries.keys()) console.log(`  - ${e}`);
  process.exit(0);
}
const [suiteDir, resultsDir, failuresPath] = args;
const parseYAML = yamlOf(suiteDir);
const classOf = readClasses(parseYAML, failuresPath);
// The class of serve's own faults; every other class is "not applicable: …".
const ours = "notesbench's";
const classOrder = [ours, ...new Set(classOf.values())];

// A failed check, as the suite's baseline counts it.
const failing = (c) => c.status === "FAILURE" || c.status === "WARNING";
const cell = (s) => (s ?? "").replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 100);

const problems = [];
const seen = new Map(); // entry -> revisions where it failed, and where it passed
const note = (entry, revision, failed) => {
  const s = seen.get(entry) ?? { failed: [], passed: [] };
  (failed ? s.failed : s.passed).push(revision);
  seen.set(entry, s);
};
const summary = [];
const byClass = new Map();

const revisions = readdirSync(resultsDir).filter((r) => existsSync(join(suiteDir, "requirements", `${r}.yaml`))).sort();
if (revisions.length === 0) {
  console.error(`table: no results of a requirement set in ${resultsDir}`);
  process.exit(1);
}
for (const revision of revisions) {
  const set = parseYAML(readFileSync(join(suiteDir, "requirements", `${revision}.yaml`), "utf8"));
  const scored = new Set(set.server ?? []);
  const notScored = new Map((set.not_scored ?? []).filter((n) => n.leg === "server").map((n) => [n.scenario, n.reason]));
  const ran = new Map();
  for (const sub of readdirSync(join(resultsDir, revision)).sort()) {
    const m = sub.match(/^server-(.+)-\d{4}-\d\d-\d\dT/);
    if (m) ran.set(m[1], JSON.parse(readFileSync(join(resultsDir, revision, sub, "checks.json"), "utf8")));
  }
  const rows = [];
  let pass = 0;
  const classCount = new Map();
  for (const scenario of [...scored, ...notScored.keys()]) {
    const checks = ran.get(scenario);
    const isScored = scored.has(scenario);
    const scoredCell = isScored ? "yes" : `no: ${notScored.get(scenario)}`;
    if (!checks) {
      rows.push(`| ${scenario} | ${scoredCell} | | | | **not run** | | |`);
      if (isScored) problems.push(`${revision}: the suite did not run ${scenario}, which its set requires`);
      continue;
    }
    const n = (status) => checks.filter((c) => c.status === status).length;
    const passed = n("SUCCESS"), failed = n("FAILURE"), warned = n("WARNING");
    const passes = failed === 0 && passed > 0;
    if (isScored && passes) pass++;
    // The class of each failed check: the scenario's entry, or the check's.
    const classes = new Set();
    let unclassified = 0;
    const whole = classOf.get(scenario);
    if (whole) note(scenario, revision, failed + warned > 0);
    for (const c of checks) {
      const entry = `${scenario}:${c.id}`;
      const own = classOf.get(entry);
      if (own) note(entry, revision, failing(c));
      if (!failing(c)) continue;
      const cls = whole ?? own;
      if (cls) classes.add(cls);
      else unclassified++;
    }
    let outcome = passes ? (warned > 0 ? "pass, warned" : "pass") : failed === 0 ? "no check passed or failed" : "fail";
    if (unclassified > 0) {
      outcome = `**${outcome}: ${unclassified} failed without a class**`;
      problems.push(`${revision}: ${scenario}: ${unclassified} failed or warned check(s) with no class in expected-failures.yml`);
    }
    for (const cls of classes) {
      if (isScored && !passes) classCount.set(cls, (classCount.get(cls) ?? 0) + 1);
      byClass.set(cls, (byClass.get(cls) ?? new Set()).add(scenario));
    }
    const first = checks.find(failing);
    rows.push(`| ${scenario} | ${scoredCell} | ${passed} | ${failed} | ${warned} | ${outcome} | ${cell([...classes].join("; "))} | ${cell(first?.errorMessage ?? first?.description)} |`);
  }
  for (const scenario of ran.keys()) {
    if (!scored.has(scenario) && !notScored.has(scenario)) problems.push(`${revision}: the suite ran ${scenario}, which its set does not name`);
  }
  const line = `${revision}: ${pass} of ${scored.size} pass`;
  summary.push(line);
  console.log(`\n### ${revision}: the suite's requirement set, run at ${revision}\n`);
  console.log("| scenario | scored | checks passed | failed | warned | outcome | class | first failure |");
  console.log("|---|---|---:|---:|---:|---|---|---|");
  for (const r of rows) console.log(r);
  const fails = scored.size - pass;
  const why = classOrder.filter((cls) => cls === ours || classCount.has(cls)).map((cls) => `${classCount.get(cls) ?? 0} ${cls}`);
  console.log(`\n${line}; of the ${fails} that fail: ${why.join(", ")}.`);
}

for (const [entry, s] of seen) {
  if (s.passed.length > 0) problems.push(`${entry} passes at ${s.passed.join(" and ")}: remove it from expected-failures.yml`);
}
for (const entry of classOf.keys()) {
  if (!seen.has(entry)) problems.push(`${entry}, in expected-failures.yml, names nothing the suite ran`);
}
console.log(`\n${summary.join("; ")}; scenarios failed that are notesbench's: ${byClass.get(ours)?.size ?? 0}.`);
if (problems.length > 0) {
  console.log("\nThe failures' classes do not hold:");
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}

// yamlOf returns the YAML parser the suite is installed with.
function yamlOf(dir) {
  return createRequire(join(dir, "package.json"))("yaml").parse;
}

// readClasses reads expected-failures.yml: under server, each class with
// its entries. It returns each entry's class, and refuses an entry listed
// twice.
function readClasses(parse, path) {
  const doc = parse(readFileSync(path, "utf8"));
  const classes = new Map();
  if (!doc?.server || typeof doc.server !== "object" || Array.isArray(doc.server)) {
    console.error(`table: ${path}: want server: a map of each class to its entries`);
    process.exit(1);
  }
  for (const [cls, entries] of Object.entries(doc.server)) {
    if (!Array.isArray(entries ?? [])) {
      console.error(`table: ${path}: class ${JSON.stringify(cls)}: want a list of entries`);
      process.exit(1);
    }
    for (const e of entries ?? []) {
      if (classes.has(e)) {
        console.error(`table: ${path}: ${e} is listed twice`);
        process.exit(1);
      }
      classes.set(String(e), cls);
    }
  }
  return classes;
}
