// idempotency.mjs: two server scenarios in the shape of the official MCP
// conformance suite's (a name, a description that states the requirements and
// the fixtures the server needs, and run(ctx) returning checks), for a
// proposal to make idempotency part of MCP: "retry after a lost result" and
// "stale precondition". The suite cannot load scenarios from outside it, so
// run.mjs runs these against any server; docs/retries.md says why they matter.
//
// The fixtures are a write tool that takes an idempotency key and an expected
// version, and a read tool that returns the text and the version. Their names
// and arguments are the context's (run.mjs: the Notes contract's by default),
// so that the scenarios run against a server with tools of its own.

const specReferences = [
  { id: "MCP-2026-07-28-transports", url: "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports" },
];

const check = (id, name, description, failures, details) => ({
  id, name, description,
  status: failures.length === 0 ? "SUCCESS" : "FAILURE",
  timestamp: new Date().toISOString(),
  errorMessage: failures.length > 0 ? failures.join("; ") : undefined,
  specReferences, details,
});

// fill replaces {key}, {version} and {text} in the context's arguments; a
// string that is a placeholder alone takes the value as it is (a number stays
// a number).
function fill(template, values) {
  if (typeof template === "string") {
    const whole = template.match(/^\{(\w+)\}$/);
    if (whole && whole[1] in values) return values[whole[1]];
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }
  if (Array.isArray(template)) return template.map((t) => fill(t, values));
  if (template && typeof template === "object") {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fill(v, values)]));
  }
  return template;
}

// object is a tool result's object: its structured content, or its text.
function object(result) {
  if (result?.structuredContent) return result.structuredContent;
  const text = result?.content?.find((c) => c.type === "text")?.text;
  try {
    return JSON.parse(text);
  } catch {
    return { text };
  }
}

const at = (obj, path) => path.split(".").reduce((o, k) => (o == null ? o : o[k]), obj);

async function read(client, fx) {
  const r = await client.callTool(fx.read.tool, fx.read.arguments);
  if (r.isError) throw new Error(`${fx.read.tool} failed: ${JSON.stringify(object(r))}`);
  const o = object(r);
  return { text: String(at(o, fx.read.text) ?? ""), version: at(o, fx.read.version) };
}

const count = (text, line) => text.split("\n").filter((l) => l.trim() === line).length;

// A result without the marker a replay may carry, for comparing two results.
function comparable(result) {
  const o = { ...object(result) };
  delete o.replayed;
  return JSON.stringify(o);
}

export class RetryAfterLostResultScenario {
  constructor() {
    this.name = "tools-call-retry-after-lost-result";
    this.description = `A write whose result is lost, re-issued as a new request.

**Why:** on 2026-07-28 a response stream that breaks before the result loses
the in-flight request, and the client MUST re-issue it as a new request with a
new id; over stdio a client may re-issue it against a fresh process. The
server cannot tell the re-issue from a new write by its id.

**Server Implementation Requirements (proposed):**
- A tools/call that carries an idempotency key the server has seen with the
  same arguments MUST return the first result, and MUST NOT apply the write a
  second time, whatever the request id.

**Required server fixtures (the context names them):** a write tool taking an
idempotency key, an expected version and the new text; a read tool returning
the text and the version.`;
  }

  async run(ctx) {
    const checks = [];
    const fx = ctx.fixtures;
    const client = await ctx.connect();
    try {
      const before = await read(client, fx);
      const line = `retry-after-lost-result ${Date.now()}`;
      const args = fill(fx.write.arguments, { key: `conformance-retry-${Date.now()}`, version: before.version, text: `${before.text}${line}\n` });
      const first = await client.callTool(fx.write.tool, args); // its result is the one lost
      const again = await client.callTool(fx.write.tool, args); // re-issued: a new request, a new id
      const failures = [];
      if (first.isError) failures.push(`the first call failed: ${JSON.stringify(object(first))}`);
      if (again.isError) failures.push(`the re-issued call failed: ${JSON.stringify(object(again))}`);
      else if (comparable(first) !== comparable(again)) failures.push(`the re-issued call got ${comparable(again)}, not the first result ${comparable(first)}`);
      checks.push(check("retry-after-lost-result-first-result", "RetryReturnsFirstResult",
        "A re-issued write with the same idempotency key and arguments returns the first result", failures,
        { first: object(first), again: object(again) }));
      const after = await read(client, fx);
      const n = count(after.text, line);
      checks.push(check("retry-after-lost-result-applied-once", "RetryAppliedOnce",
        "A re-issued write with the same idempotency key is applied once", n === 1 ? [] : [`the line is in the text ${n} times`],
        { occurrences: n }));
    } catch (e) {
      checks.push(check("retry-after-lost-result-run", "RetryAfterLostResultRun", "The scenario ran", [String(e?.message ?? e)]));
    } finally {
      await client.close();
    }
    return checks;
  }
}

export class StalePreconditionScenario {
  constructor() {
    this.name = "tools-call-stale-precondition";
    this.description = `A write whose expected version another write has moved.

**Why:** an agent that writes what it read, after a person saved, overwrites
the person's save unless the server compares the version it read.

**Server Implementation Requirements (proposed):**
- A write whose expected version is no longer current MUST fail as a tool
  error (isError) that names the current version, and MUST NOT change
  anything.

**Required server fixtures (the context names them):** as
tools-call-retry-after-lost-result.`;
  }

  async run(ctx) {
    const checks = [];
    const fx = ctx.fixtures;
    const client = await ctx.connect();
    try {
      const before = await read(client, fx);
      const stamp = Date.now();
      const first = await client.callTool(fx.write.tool, fill(fx.write.arguments, { key: `conformance-stale-a-${stamp}`, version: before.version, text: `${before.text}stale-precondition first ${stamp}\n` }));
      if (first.isError) throw new Error(`the first write failed: ${JSON.stringify(object(first))}`);
      const middle = await read(client, fx);
      const stale = await client.callTool(fx.write.tool, fill(fx.write.arguments, { key: `conformance-stale-b-${stamp}`, version: before.version, text: `${before.text}stale-precondition second ${stamp}\n` }));
      const after = await read(client, fx);
      const failures = [];
      if (!stale.isError) failures.push(`the write with the stale version ${JSON.stringify(before.version)} succeeded: ${JSON.stringify(object(stale))}`);
      if (after.text !== middle.text) failures.push("the write with the stale version changed the text");
      checks.push(check("stale-precondition-refused", "StalePreconditionRefused",
        "A write with a stale expected version fails and changes nothing", failures, { result: object(stale) }));
      const named = JSON.stringify(object(stale)).includes(JSON.stringify(middle.version));
      checks.push({ ...check("stale-precondition-names-current", "StalePreconditionNamesCurrent",
        "The refusal names the current version", named ? [] : [`the refusal does not name the current version ${JSON.stringify(middle.version)}`]),
        status: named ? "SUCCESS" : "WARNING" });
    } catch (e) {
      checks.push(check("stale-precondition-run", "StalePreconditionRun", "The scenario ran", [String(e?.message ?? e)]));
    } finally {
      await client.close();
    }
    return checks;
  }
}

export const scenarios = [new RetryAfterLostResultScenario(), new StalePreconditionScenario()];
