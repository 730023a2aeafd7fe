// app.mjs: the application every JavaScript driver of notesbench's client
// audit runs (docs/clients.md), over one library's call of a tool.
//
// It appends NOTESBENCH_LINES lines to the Note: read the tab, write its text
// with the line added, the version read and an idempotency key of the
// line's own. After a version conflict it reads again and writes again with
// the same key; after any other error it sends the same write again, key and
// all (--new-key: reads again and writes with a new key, as an application
// that knows nothing of keys does), at most four calls a line. It prints one
// JSON line per call: what the application was told.
import { randomUUID } from "node:crypto";

const tries = 4;

// result is a tool result's object: its structured content, or its text.
function result(r) {
  if (r.structuredContent) return r.structuredContent;
  const text = r.content?.find((c) => c.type === "text")?.text;
  try {
    return JSON.parse(text);
  } catch {
    return { text };
  }
}

// run appends the lines through call(name, args), which resolves to a tool
// result ({content, structuredContent, isError}) or throws what the library
// threw; after a throw, reset() (when given) lets the library start again.
export async function run({ call, reset }) {
  const env = process.env;
  const [note, tab, lines] = [env.NOTESBENCH_NOTE_ID, env.NOTESBENCH_TAB_ID, Number(env.NOTESBENCH_LINES)];
  if (!(env.NOTESBENCH_SERVER_URL || env.NOTESBENCH_SERVER_COMMAND) || !note || !tab || !(lines > 0)) {
    throw new Error("run me under notesbench audit --client: NOTESBENCH_SERVER_URL (or NOTESBENCH_SERVER_COMMAND), NOTESBENCH_NOTE_ID, NOTESBENCH_TAB_ID and NOTESBENCH_LINES must be set");
  }
  const newKey = process.argv.includes("--new-key");
  const prefix = randomUUID().slice(0, 8);
  const attempt = async (name, args) => {
    try {
      return [await call(name, args), null];
    } catch (e) {
      if (reset) await reset(e);
      return [null, e];
    }
  };
  const next = async (i, key) => {
    let last;
    for (let t = 1; t <= tries; t++) {
      const [r, err] = await attempt("read_note_tab", { note_id: note, tab_id: tab });
      if (r && !r.isError) {
        const read = result(r);
        return { note_id: note, tab_id: tab, expected_version: read.version, idempotency_key: key,
          operation: "replace_text", text: `${read.data}line ${i}\n` };
      }
      last = err ?? JSON.stringify(result(r));
    }
    throw new Error(`reading the tab: ${last?.message ?? last}`);
  };
  for (let i = 1; i <= lines; i++) {
    let key = `${prefix}-${i}`;
    let args = await next(i, key);
    for (let t = 1; t <= tries; t++) {
      const [r, err] = await attempt("edit_note_tab", args);
      let told = "ok", msg = "";
      if (err) {
        told = "error";
        msg = String(err?.message ?? err);
      } else if (r.isError) {
        told = "error";
        const res = result(r);
        msg = res.error ?? JSON.stringify(res);
      }
      console.log(JSON.stringify({ line: i, tool: "edit_note_tab", idempotency_key: key, told, error: msg }));
      if (told === "ok") break;
      if (msg === "version_conflict" || newKey) {
        if (newKey && msg !== "version_conflict") key = `${prefix}-${i}-${t}`;
        args = await next(i, key);
      }
    }
  }
}
