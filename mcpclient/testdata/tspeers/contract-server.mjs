// contract-server.mjs: the Notes contract (guard note, counter versions, key
// first) as a server of the TypeScript MCP SDK, for notesbench's tests. Its
// Notes live in this process's memory; every session and request of it sees
// them. It serves streamable HTTP on an ephemeral loopback port, prints
// "listening on URL" on stdout and serves until stdin closes.
//
// Usage: node contract-server.mjs 2|1 TOOLS_LIST_JSON
//   2: @modelcontextprotocol/server 2.x: 2026-07-28 statelessly (createMcpHandler),
//      2025 clients statelessly too (its legacy fallback)
//   1: @modelcontextprotocol/sdk 1.x: 2025-11-25 with sessions (Mcp-Session-Id)
// The SDK is imported from the node_modules beside this file.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";

const [sdkMajor, toolsFile] = process.argv.slice(2);
const published = JSON.parse(readFileSync(toolsFile, "utf8")).tools;
const extension = { "notesbench/extension": true };
const tools = [
  ...published,
  { name: "notesbench_create_note", description: "notesbench's extension: a fresh Note", _meta: extension,
    inputSchema: { type: "object", properties: { note_id: { type: "string" } }, required: ["note_id"] } },
  { name: "notesbench_describe", description: "notesbench's extension: what serves the contract", _meta: extension,
    inputSchema: { type: "object", properties: {} } },
];
const required = Object.fromEntries(published.map((t) => [t.name, t.inputSchema.required ?? []]));

// The Notes: id → { version, nextTab, nextItem, tabs, sources, keys }.
const notes = new Map();

class Outcome extends Error {
  constructor(result) {
    super(result.error);
    this.result = result;
  }
}
const invalid = (field, message) => new Outcome({ error: "invalid_argument", field, message: `${field}: ${message}` });
const notFound = (field, id) => new Outcome({ error: "not_found", field, id, message: `${field} ${id}: not found` });

function note(id) {
  const n = notes.get(id);
  if (!n) throw notFound("note_id", id);
  return n;
}

function tab(n, id) {
  const t = n.tabs.find((t) => t.tab_id === id);
  if (!t) throw notFound("tab_id", id);
  return t;
}

function tabData(t) {
  if (t.type === "markdown") return t.data;
  if (t.type === "files" || t.type === "sources") return { items: t.items ?? [] };
  return t.data;
}

// write runs a write of tool on Note args.note_id: the key first (its
// stored result, replayed), then the version, then apply, which returns the
// result; the version moves and the result is stored under the key.
function write(tool, args, apply) {
  const n = note(args.note_id);
  const key = args.idempotency_key;
  const stored = n.keys.get(key);
  if (stored) {
    if (stored.tool !== tool) throw invalid("idempotency_key", `the key was used by ${stored.tool}`);
    return { ...stored.result, replayed: true };
  }
  if (args.expected_version !== n.version) throw new Outcome({ error: "version_conflict", current_version: n.version });
  const result = apply(n);
  n.version++;
  result.version = n.version;
  n.keys.set(key, { tool, result });
  return result;
}

const handlers = {
  list_note_tabs(a) {
    const n = note(a.note_id);
    return { note_id: a.note_id, version: n.version, tabs: n.tabs.map(({ tab_id, type, label, position }) => ({ tab_id, type, label, position })) };
  },
  read_note_tab(a) {
    const n = note(a.note_id);
    const t = tab(n, a.tab_id);
    return { note_id: a.note_id, tab_id: t.tab_id, type: t.type, label: t.label, data: tabData(t), version: n.version };
  },
  read_sheet_range(a) {
    const t = tab(note(a.note_id), a.tab_id);
    if (t.type !== "sheet") throw invalid("tab_id", "not a sheet");
    return { note_id: a.note_id, tab_id: t.tab_id, sheet_id: t.data.sheets[0].sheet_id, start_row: 0, start_col: 0, values: t.data.sheets[0].cells };
  },
  list_note_attachments(a) {
    const n = note(a.note_id);
    const kind = a.kind ?? "sources";
    return { note_id: a.note_id, kind, items: kind === "sources" ? n.sources.slice(0, a.limit ?? 50) : [], next_cursor: "" };
  },
  edit_note_tab(a) {
    return write("edit_note_tab", a, (n) => {
      const t = tab(n, a.tab_id);
      switch (a.operation) {
        case "replace_text":
          if (t.type !== "markdown") throw invalid("operation", "replace_text edits the markdown tab");
          t.data = a.text ?? "";
          return { note_id: a.note_id, tab_id: t.tab_id, changed: "text" };
        case "sheet_set_range": {
          if (t.type !== "sheet") throw invalid("operation", "sheet_set_range edits a sheet tab");
          const cells = t.data.sheets[0].cells;
          (a.values ?? []).forEach((row, i) => row.forEach((v, j) => {
            const r = (a.start_row ?? 0) + i, c = (a.start_col ?? 0) + j;
            while (cells.length <= r) cells.push([]);
            cells[r][c] = v;
          }));
          return { note_id: a.note_id, tab_id: t.tab_id, changed: "cells" };
        }
        case "replace_tab_data":
          if (t.type !== "slides" && t.type !== "sheet") throw invalid("operation", "replace_tab_data edits a slides or sheet tab");
          t.data = a.data;
          return { note_id: a.note_id, tab_id: t.tab_id, changed: "data" };
      }
      throw invalid("operation", `${a.operation} is not served here`);
    });
  },
  create_note_tab(a) {
    return write("create_note_tab", a, (n) => {
      const type = a.tab_type;
      const id = `${type}-${n.nextTab++}-${Date.now().toString(36)}`;
      const label = (a.label ?? "").trim() || (type === "sheet" ? "Sheet" : "Slides");
      const data = type === "sheet" ? { sheets: [{ sheet_id: "sheet-1", name: "Sheet 1", cells: [] }] } : { slides: a.slides ?? [] };
      n.tabs.push({ tab_id: id, type, label, position: n.tabs.length, data });
      return { note_id: a.note_id, tab_id: id, type, label, position: n.tabs.length - 1 };
    });
  },
  add_note_source(a) {
    if (!/^https?:\/\//.test(a.url ?? "")) throw invalid("url", "http or https only");
    return write("add_note_source", a, (n) => {
      const id = `source-${n.nextItem++}`;
      n.sources.push({ id, title: a.title, url: a.url, created_at: new Date().toISOString() });
      return { note_id: a.note_id, source_id: id };
    });
  },
  notesbench_create_note(a) {
    if (notes.has(a.note_id)) throw invalid("note_id", "the Note exists");
    const fixed = ["markdown", "files", "sources"].map((type, position) => ({ tab_id: type, type, label: type, position, data: type === "markdown" ? "" : undefined }));
    notes.set(a.note_id, { version: 1, nextTab: 1, nextItem: 1, tabs: fixed, sources: [], keys: new Map() });
    return { note_id: a.note_id, done: true };
  },
  notesbench_describe() {
    return { server: `contract-server (TypeScript SDK ${sdkMajor}.x)`, backend: "memory of one node process",
      variant: { guard: "note", version_format: "counter", order: "key-first" }, person_actions: false };
  },
};

// call answers tools/call: a contract outcome is a result with isError.
function call(name, args) {
  const h = handlers[name];
  if (!h) throw Object.assign(new Error(`unknown tool ${name}`), { code: -32602 });
  let out, isError = false;
  try {
    for (const field of required[name] ?? []) {
      const v = args?.[field];
      if (v === undefined || v === null || v === "") throw invalid(field, "required");
    }
    out = h(args ?? {});
  } catch (e) {
    if (!(e instanceof Outcome)) throw e;
    out = e.result;
    isError = true;
  }
  return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out, isError };
}

const info = { name: "notesbench-test-contract", version: "1.0.0" };
const options = { capabilities: { tools: {} } };

// handle serves one node HTTP request, the body read, through fetchLike (a
// web-standard handler) or the 1.x session transports.
let serveRequest;
if (sdkMajor === "2") {
  const { Server, createMcpHandler } = await import("@modelcontextprotocol/server");
  const factory = () => {
    const s = new Server(info, options);
    s.setRequestHandler("tools/list", async () => ({ tools }));
    s.setRequestHandler("tools/call", async (req) => call(req.params.name, req.params.arguments));
    return s;
  };
  const handler = createMcpHandler(factory, { legacy: "stateless" });
  serveRequest = async (req, res, body) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
} else {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { ListToolsRequestSchema, CallToolRequestSchema, isInitializeRequest } = await import("@modelcontextprotocol/sdk/types.js");
  const transports = new Map();
  serveRequest = async (req, res, body) => {
    const parsed = body.length ? JSON.parse(body.toString()) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = sid && transports.get(sid);
    if (!transport) {
      if (req.method !== "POST" || sid || !isInitializeRequest(parsed)) {
        res.writeHead(sid ? 404 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no such session" } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transports.delete(transport.sessionId);
      const s = new Server(info, options);
      s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
      s.setRequestHandler(CallToolRequestSchema, async (req) => call(req.params.name, req.params.arguments));
      await s.connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    serveRequest(req, res, Buffer.concat(chunks)).catch((e) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
});
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
