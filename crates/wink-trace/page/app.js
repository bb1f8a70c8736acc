// wink trace: the runs `wink trace serve` was given, drawn from their OTLP/JSON spans
// (runs.json). No framework, no external request: everything here comes from this server.
"use strict";

const OP = "gen_ai.operation.name";

function value(v) {
  if (v == null) return null;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) return (v.arrayValue.values || []).map(value);
  return null;
}

function attributes(list) {
  const out = {};
  for (const kv of list || []) out[kv.key] = value(kv.value);
  return out;
}

// Microseconds since the epoch (nanosecond strings do not fit a double).
function micros(ns) {
  return Number(BigInt(ns) / 1000n);
}

function decode(otlp) {
  const spans = [];
  for (const rs of otlp.resourceSpans || []) {
    for (const ss of rs.scopeSpans || []) {
      for (const s of ss.spans || []) {
        spans.push({
          id: s.spanId, parent: s.parentSpanId || null, name: s.name,
          start: micros(s.startTimeUnixNano), end: micros(s.endTimeUnixNano),
          attrs: attributes(s.attributes),
          events: (s.events || []).map(e => ({ name: e.name, time: micros(e.timeUnixNano), attrs: attributes(e.attributes) })),
          error: s.status && s.status.code === 2 ? (s.status.message || "error") : null,
        });
      }
    }
  }
  return spans;
}

// Every root run of an entry (a log may hold several runs), with its spans.
function runsOf(entry) {
  const spans = decode(entry.otlp);
  const byId = new Map(spans.map(s => [s.id, s]));
  const kids = new Map();
  for (const s of spans) {
    if (s.parent && byId.has(s.parent)) {
      if (!kids.has(s.parent)) kids.set(s.parent, []);
      kids.get(s.parent).push(s);
    }
  }
  const roots = spans.filter(s => !(s.parent && byId.has(s.parent)) && s.attrs[OP] === "invoke_agent");
  roots.sort((a, b) => a.start - b.start);
  return roots.map((root, i) => {
    const rows = [];
    const walk = (span, depth) => {
      for (const kid of (kids.get(span.id) || []).sort((a, b) => a.start - b.start)) {
        rows.push({ span: kid, depth });
        walk(kid, depth + 1);
      }
    };
    walk(root, 0);
    rows.sort((a, b) => a.span.start - b.span.start || a.depth - b.depth);
    const events = [root, ...rows.map(r => r.span).filter(s => s.attrs[OP] === "invoke_agent")]
      .flatMap(s => s.events).sort((a, b) => a.time - b.time);
    return { label: roots.length > 1 ? `${entry.label} #${i + 1}` : entry.label, source: entry.source, root, rows, events };
  });
}

const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (k === "style") node.style.cssText = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else if (k === "onclick") node.addEventListener("click", v);
    else node[k] = v;
  }
  for (const c of children.flat()) if (c != null) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
};

const fmt = n => (n == null ? "–" : Number(n).toLocaleString("en-US"));
const secs = us => `${(us / 1e6).toFixed(2)}s`;
const tok = s => ({
  input: s.attrs["gen_ai.usage.input_tokens"] || 0,
  cached: s.attrs["gen_ai.usage.cache_read.input_tokens"] || 0,
  output: s.attrs["gen_ai.usage.output_tokens"] || 0,
});

function eventText(e) {
  const a = e.attrs;
  switch (e.name) {
    case "wink.section.opened": return `opened ${a["wink.section.key"]}`;
    case "wink.tools.injected": return `injected ${(a["wink.tools"] || []).join(", ")} (from ${a["wink.section.key"]})`;
    case "wink.run.restarted": return `restarted with ${(a["wink.sections"] || []).join(", ")} open`;
    case "wink.intervention": {
      const what = a["wink.kind"] || a["wink.rule"] || "";
      const detail = a["wink.detail"] || a["wink.action"] || "";
      const tool = a["wink.tool"] ? ` ${a["wink.tool"]}` : "";
      return `${a["wink.event.type"]} ${what}${tool}: ${detail}`;
    }
    default: return e.name;
  }
}

function summary(runs) {
  const head = el("tr", {}, ["run", "status", "model calls", "tool calls", "input", "cached", "uncached", "output", "seconds"].map(h => el("th", {}, h)));
  const rows = runs.map((run, i) => {
    const a = run.root.attrs;
    const t = tok(run.root);
    const status = a["wink.run.status"] || (a["wink.run.incomplete"] ? "incomplete" : "–");
    return el("tr", { "data-run": i },
      el("td", {}, run.label), el("td", { class: `status-${status}` }, status),
      el("td", {}, fmt(a["wink.run.model_calls"])), el("td", {}, fmt(a["wink.run.tool_calls"])),
      el("td", {}, fmt(t.input)), el("td", {}, fmt(t.cached)), el("td", {}, fmt(t.input - t.cached)),
      el("td", {}, fmt(t.output)), el("td", {}, a["wink.timing.unknown"] ? "–" : secs(run.root.end - run.root.start)));
  });
  return el("table", {}, el("thead", {}, head), el("tbody", {}, rows));
}

function timeline(run, runIndex, state) {
  const t0 = run.root.start;
  const span = Math.max(run.root.end - t0, 1);
  const pct = t => `${(100 * (t - t0) / span).toFixed(3)}%`;
  const box = el("div", { class: "timeline" });
  for (const e of run.events) {
    box.append(el("div", { class: `marker ${e.name === "wink.intervention" ? "intervention" : ""}`, style: `left:${pct(e.time)}`, title: eventText(e) }));
  }
  run.rows.forEach((row, rowIndex) => {
    const s = row.span;
    const op = s.attrs[OP];
    const kind = op === "chat" ? "chat" : op === "retrieval" ? "retrieval" : op === "invoke_agent" ? "retrieval" : "tool";
    let label;
    if (op === "chat") {
      const t = tok(s);
      label = `call ${s.attrs["wink.model_call.index"] + 1} · ${secs(s.end - s.start)} · ${fmt(t.input)} in / ${fmt(t.output)} out`;
    } else {
      label = `${s.attrs["gen_ai.tool.name"] || s.name} · ${secs(s.end - s.start)}`;
    }
    if (s.error) label += " · ERROR";
    const selected = state.run === runIndex && state.row === rowIndex;
    const node = el("div", {
      class: `row ${op === "chat" ? "chat-row" : "tool-row"} ${selected ? "selected" : ""}`,
      "data-op": op, "data-call": op === "chat" ? s.attrs["wink.model_call.index"] : "",
      onclick: () => select(runIndex, rowIndex),
    },
      el("div", { class: `bar ${s.error ? "error" : kind}`, style: `left:${pct(s.start)};width:calc(${pct(s.end)} - ${pct(s.start)})` }),
      el("span", { class: "label", style: `margin-left:${row.depth * 12}px` }, label));
    box.append(node);
  });
  return box;
}

function tokenBars(run, scale) {
  const calls = run.rows.map(r => r.span).filter(s => s.attrs[OP] === "chat");
  if (!calls.length) return el("p", { class: "empty" }, "No model calls.");
  const w = n => `${(100 * n / scale).toFixed(3)}%`;
  return el("div", { class: "tokens" },
    el("div", { class: "legend" }, el("i", { class: "seg-cached" }), "cached", el("i", { class: "seg-uncached" }), "uncached", el("i", { class: "seg-output" }), "output"),
    calls.map(s => {
      const t = tok(s);
      return el("div", { class: "trow", "data-call": s.attrs["wink.model_call.index"] },
        el("span", {}, `call ${s.attrs["wink.model_call.index"] + 1}`),
        el("div", { class: "stack" },
          el("span", { class: "seg-cached", style: `width:${w(t.cached)}` }),
          el("span", { class: "seg-uncached", style: `width:${w(t.input - t.cached)}` }),
          el("span", { class: "seg-output", style: `width:${w(t.output)}` })),
        el("span", {}, `${fmt(t.cached)} + ${fmt(t.input - t.cached)} + ${fmt(t.output)}`));
    }));
}

function sectionTree(s) {
  let sections = [];
  try { sections = JSON.parse(s.attrs["wink.prompt.sections"] || "[]"); } catch (_) { sections = []; }
  if (!sections.length) return el("p", { class: "empty" }, "No section tree recorded for this call.");
  return el("ul", { class: "sections" }, sections.map(sec => {
    const opened = sec.opened_before_call != null;
    const state = opened ? "opened" : sec.visibility;
    const badge = opened ? `opened · call ${sec.opened_before_call + 1}` : sec.visibility === "summary" ? "summarized" : "full";
    return el("li", { class: "section", "data-key": sec.key, "data-state": state, style: `padding-left:${(sec.depth - 1) * 16}px` },
      el("span", { class: `vis vis-${state}` }, badge), sec.title,
      sec.tools && sec.tools.length ? el("span", { class: "tools" }, ` — tools: ${sec.tools.join(", ")}`) : null,
      sec.hidden_tools && sec.hidden_tools.length && !opened ? el("span", { class: "tools" }, ` — hides: ${sec.hidden_tools.join(", ")}`) : null,
      sec.injected && sec.injected.length ? el("span", { class: "injected" }, ` — injected: ${sec.injected.join(", ")}`) : null);
  }));
}

function detail(run, rowIndex) {
  const row = run.rows[rowIndex];
  if (!row) return el("p", { class: "empty" }, "Click a call in the timeline to see what the model saw.");
  const s = row.span;
  const a = s.attrs;
  const parts = [el("h3", {}, s.name)];
  if (s.error) parts.push(el("p", { class: "err" }, `Error (${a["error.type"] || "error"}): ${s.error}`));
  if (a[OP] === "chat") {
    const t = tok(s);
    parts.push(el("p", {}, `${fmt(t.input)} input tokens (${fmt(t.cached)} cached), ${fmt(t.output)} output · ${secs(s.end - s.start)} · finish: ${(a["gen_ai.response.finish_reasons"] || ["–"]).join(", ")} · tools offered: ${(a["wink.tools.offered"] || []).join(", ") || "none"}`));
    parts.push(el("h3", {}, "Prompt sections at this call"), sectionTree(s));
    if (a["gen_ai.output.messages"]) parts.push(el("h3", {}, "Output"), el("pre", {}, a["gen_ai.output.messages"]));
  } else {
    parts.push(el("p", {}, `${a["gen_ai.tool.name"] || ""} ${a["gen_ai.tool.call.id"] ? `(${a["gen_ai.tool.call.id"]})` : ""} · ${secs(s.end - s.start)}`));
    if (a["gen_ai.request.top_k"] != null) parts.push(el("p", {}, `retrieval: top ${a["gen_ai.request.top_k"]}, ${fmt(a["wink.retrieval.results"])} results`));
    if (a["gen_ai.tool.call.arguments"]) parts.push(el("h3", {}, "Arguments"), el("pre", {}, a["gen_ai.tool.call.arguments"]));
    if (a["gen_ai.tool.call.result"]) parts.push(el("h3", {}, "Result"), el("pre", {}, a["gen_ai.tool.call.result"]));
  }
  return el("div", {}, parts);
}

let RUNS = [];
const STATE = { run: -1, row: -1 };

function render() {
  const scale = Math.max(1, ...RUNS.flatMap(r => r.rows.map(x => x.span).filter(s => s.attrs[OP] === "chat").map(s => { const t = tok(s); return t.input + t.output; })));
  const summaryNode = document.getElementById("summary");
  summaryNode.replaceChildren(summary(RUNS));
  const runsNode = document.getElementById("runs");
  runsNode.replaceChildren(...RUNS.map((run, i) => {
    const a = run.root.attrs;
    const status = a["wink.run.status"] || (a["wink.run.incomplete"] ? "incomplete" : "–");
    return el("article", { class: "run", "data-run": i },
      el("h2", {}, run.label),
      el("div", { class: "meta" }, `${run.root.name} · `, el("span", { class: `status-${status}` }, status),
        ` · ${a["gen_ai.request.model"] || ""} · ${a["wink.timing.unknown"] ? "times unknown" : secs(run.root.end - run.root.start)}`),
      run.root.error ? el("p", { class: "err" }, run.root.error) : null,
      el("h3", {}, "Timeline"), timeline(run, i, STATE),
      el("h3", {}, "Tokens per call"), tokenBars(run, scale),
      el("h3", {}, "Disclosure, repairs and interventions"),
      run.events.length ? el("ul", { class: "events" }, run.events.map(e => el("li", { class: e.name === "wink.intervention" ? "intervention" : "" }, `+${secs(e.time - run.root.start)} ${eventText(e)}`))) : el("p", { class: "empty" }, "None."),
      el("div", { class: "detail" }, STATE.run === i ? detail(run, STATE.row) : el("p", { class: "empty" }, "Click a call in the timeline to see what the model saw.")));
  }));
}

function select(run, row) {
  STATE.run = run;
  STATE.row = row;
  const callSpan = RUNS[run] && RUNS[run].rows[row] ? RUNS[run].rows[row].span : null;
  const call = callSpan && callSpan.attrs[OP] === "chat" ? `call=${callSpan.attrs["wink.model_call.index"]}` : `row=${row}`;
  history.replaceState(null, "", `#run=${run}&${call}`);
  render();
}

// `#run=R&call=C` opens model call C (from 0) of run R; `#run=R&row=N` the Nth timeline row.
function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const run = Number(params.get("run"));
  if (!Number.isInteger(run) || !RUNS[run]) return;
  STATE.run = run;
  if (params.has("call")) {
    const call = Number(params.get("call"));
    STATE.row = RUNS[run].rows.findIndex(r => r.span.attrs[OP] === "chat" && r.span.attrs["wink.model_call.index"] === call);
  } else if (params.has("row")) {
    STATE.row = Number(params.get("row"));
  }
}

fetch("runs.json").then(r => r.json()).then(data => {
  RUNS = data.runs.flatMap(runsOf);
  const folders = [...new Set(data.runs.map(r => r.source.replace(/[^/\\]*$/, "") || "./"))];
  document.getElementById("subtitle").textContent =
    `${RUNS.length} run${RUNS.length === 1 ? "" : "s"} from ${data.runs.length} recording${data.runs.length === 1 ? "" : "s"} in ${folders.join(", ")}`;
  fromHash();
  render();
  document.body.dataset.rendered = "true";
  document.body.dataset.renderMs = performance.now().toFixed(1);
}).catch(error => {
  document.getElementById("subtitle").textContent = `Could not load the runs: ${error}`;
  document.body.dataset.rendered = "error";
});
window.addEventListener("hashchange", () => { fromHash(); render(); });
