// A test client of the MCP TypeScript SDK, for notesbench's agent tests
// (cmd/notesbench/agent_ts_test.go): it appends EDITS lines to note-1 of the
// server at URL over streamable HTTP, each after the person edited the Note
// since its read, so that its first try conflicts, and then does what POLICY
// says:
//
//   reapply  after a conflict, re-read and apply its line to what it read;
//            after a reply it drops, resend the same call, the same key
//   refresh  after a conflict, re-read for the fresh version and resend the
//            text it built before
//   newkey   after a reply it drops, re-read and apply its line again under a
//            new key; after a conflict, as reapply
//
// It drops the reply of every third write that committed (reapply, newkey),
// and prints {"drops": N} when done.
//
// usage: node agent.mjs URL NAME POLICY EDITS
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, name, policy, editsArg] = process.argv.slice(2);
const edits = Number(editsArg);
if (!url || !name || !["reapply", "refresh", "newkey"].includes(policy) || !(edits > 0)) {
  console.error("usage: node agent.mjs URL NAME reapply|refresh|newkey EDITS");
  process.exit(2);
}

const client = new Client({ name, version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

async function call(tool, args) {
  const res = await client.callTool({ name: tool, arguments: args });
  const out = res.structuredContent ?? JSON.parse(res.content[0].text);
  return { out, isError: res.isError === true };
}

async function read() {
  const { out, isError } = await call("read_note_tab", { note_id: "note-1", tab_id: "markdown" });
  if (isError) throw new Error("read_note_tab: " + JSON.stringify(out));
  return { text: out.data, version: out.version };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForChange(version) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const { out } = await call("list_note_tabs", { note_id: "note-1" });
    if (out.version !== version) return;
    if (Date.now() > deadline) throw new Error("the person made no edit in 30 s");
    await sleep(2);
  }
}

function appendTo(text, line) {
  return text.trim() === "" ? line : text.replace(/\n+$/, "") + "\n" + line;
}

let drops = 0;
let committed = 0;
for (let i = 0; i < edits; i++) {
  const line = `${name}-${i}`;
  let { text, version } = await read();
  await waitForChange(version);
  let keys = 0;
  const key = () => `${name}-${i}-${++keys}`;
  let k = key();
  let body = appendTo(text, line);
  let expected = version;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 50) throw new Error(`no write of ${line} committed in 50 tries`);
    const { out, isError } = await call("edit_note_tab", {
      note_id: "note-1", tab_id: "markdown", expected_version: expected,
      idempotency_key: k, operation: "replace_text", text: body,
    });
    if (isError) {
      if (out.error !== "version_conflict") throw new Error("edit_note_tab: " + JSON.stringify(out));
      if (policy === "refresh") {
        expected = (await read()).version; // the fresh version, the old text
      } else {
        ({ text, version } = await read());
        body = appendTo(text, line);
        expected = version;
      }
      k = key();
      continue;
    }
    committed++;
    if (policy === "refresh" || committed % 3 !== 0) break;
    drops++; // the reply is dropped: the client does not know it committed
    if (policy === "reapply") continue; // the same call, the same key
    ({ text, version } = await read());
    body = appendTo(text, line);
    expected = version;
    k = key();
  }
}
await client.close();
console.log(JSON.stringify({ drops }));
