// The daemon's page: reads the JSON endpoints of the daemon that served it and writes
// what they say as text (never as markup). No other origin is asked anything.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
};
const num = (x, d = 4) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));
const headers = () => {
  const k = $("key").value;
  return k ? { Password: k } : {};
};

async function ask(path, init = {}) {
  init.headers = Object.assign({}, init.headers || {}, headers());
  const r = await fetch(path, init);
  const body = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function say(text, error) {
  const s = $("status");
  s.textContent = text;
  s.className = error ? "error" : "";
}

function facts(f) {
  const dl = $("facts");
  dl.replaceChildren();
  const add = (k, v) => { dl.append(el("dt", k), el("dd", v)); };
  add("model", `${f.path} (${f.form})`);
  add("classes", f.classes.join(", "));
  add("features", f.features);
  add("analyzer", f.analyzer);
  add("learner", `${f.learner} ${f.options || ""}`);
  add("trained on", `${f.trained_on} documents (${num(f.training_seconds, 1)} s, rosenblatt ${f.trained_by})`);
  add("learned since", f.learned);
  add("decides", f.probability_at_threshold != null
    ? `score > ${num(f.threshold)} (P > ${num(f.probability_at_threshold, 2)}); reject from P ${Number(Number(f.reject_probability).toPrecision(6))}`
    : `score > ${num(f.threshold)}`);
  add("generation", f.generation);
  add("verdicts", `${f.verdicts.spam} spam, ${f.verdicts.ham} ham`);
  add("learns", `${f.learns.spam} spam, ${f.learns.ham} ham`);
  chart(f.per_minute);
  $("learn-spam").hidden = $("learn-ham").hidden = !f.learning;
}

function chart(minutes) {
  const svg = $("chart");
  const NS = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  const top = Math.max(1, ...minutes.map((m) => Math.max(m.spam + m.ham, m.learned)));
  const w = 600 / 60;
  minutes.slice(-60).forEach((m, i) => {
    const bar = (x, width, h, y, cls) => {
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", x); r.setAttribute("width", width);
      r.setAttribute("y", y); r.setAttribute("height", h);
      r.setAttribute("class", cls);
      const t = document.createElementNS(NS, "title");
      t.textContent = `${new Date(m.minute * 60000).toLocaleTimeString()}: ${m.spam} spam, ${m.ham} ham, ${m.learned} learned`;
      r.append(t);
      svg.append(r);
    };
    const hs = (m.spam / top) * 118, hh = (m.ham / top) * 118, hl = (m.learned / top) * 118;
    bar(i * w + 1, w * 0.6, hh, 120 - hh, "bar-ham");
    bar(i * w + 1, w * 0.6, hs, 120 - hh - hs, "bar-spam");
    bar(i * w + 1 + w * 0.6, w * 0.3, hl, 120 - hl, "bar-learn");
  });
}

async function history() {
  const body = $("history").tBodies[0];
  let h;
  try {
    h = await ask("/v1/history");
  } catch (e) {
    $("recent-note").textContent = e.message;
    body.replaceChildren();
    return;
  }
  $("recent-note").textContent = `The last ${h.capacity} verdicts, newest first, kept in memory only.`;
  body.replaceChildren(...h.entries.map((e) => {
    const tr = el("tr");
    const b = el("button", "explain");
    b.type = "button";
    b.disabled = !e.kept;
    // The explanation is further down: the focus goes to its verdict.
    b.addEventListener("click", () => recent(e.id).then((ok) => { if (ok) $("verdict").focus(); }));
    const cell = el("td");
    cell.append(b);
    tr.append(el("td", e.id), el("td", new Date(e.at * 1000).toLocaleTimeString()),
      el("td", e.spam ? `spam (${e.action})` : "ham"), el("td", num(e.shown, 1)),
      el("td", num(e.probability)), el("td", e.bytes), cell);
    return tr;
  }));
}

let shown = null; // what the explanation shows: { id } of a recent verdict, or { text }

// Shows recent verdict `id` taken apart; whether it could.
async function recent(id) {
  try {
    show(await ask(`/v1/history/${id}`), { id });
    say(`Verdict ${id}, taken apart by the filter as it is now.`);
    return true;
  } catch (e) { say(e.message, true); return false; }
}

async function explain() {
  const text = $("message").value;
  try {
    show(await ask("/v1/annotate", { method: "POST", body: text }), { text });
    say("");
  } catch (e) { say(e.message, true); }
}

// Words of `text` between byte offsets, as the spans give them.
function painted(text, spans, toward, strongest) {
  const bytes = new TextEncoder().encode(text);
  const dec = new TextDecoder();
  const out = document.createDocumentFragment();
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    out.append(dec.decode(bytes.subarray(at, s.start)));
    const level = Math.max(1, Math.ceil((5 * Math.abs(s.contribution)) / strongest));
    const w = el("span", dec.decode(bytes.subarray(s.start, s.end)), `w ${s.contribution > 0 ? "s" : "h"}${level}`);
    w.dataset.tip = `${s.feature}: weight ${num(s.weight)}, adds ${num(s.contribution)} towards ${s.contribution > 0 ? toward : "the other class"}`;
    w.dataset.feature = s.feature;
    w.dataset.contribution = s.contribution;
    // One word of each block is in the tab order; the arrow keys move among the rest.
    w.tabIndex = out.querySelector(".w") ? -1 : 0;
    w.setAttribute("aria-describedby", "tip");
    out.append(w);
    at = s.end;
  }
  out.append(dec.decode(bytes.subarray(at)));
  return out;
}

function show(a, what) {
  shown = what;
  $("result").hidden = false;
  const p = a.probability != null ? `, P(spam) ${num(a.probability)}` : "";
  $("verdict").textContent = `${a.class}: score ${num(a.score)}${p} (bias ${num(a.bias)})`;
  const ranked = $("ranked");
  ranked.replaceChildren();
  if (a.ranked) {
    const ol = el("ol");
    for (const r of a.ranked) ol.append(el("li", `${r.class}: ${num(r.score)}${r.probability != null ? `, P ${num(r.probability)}` : ""}`));
    ranked.append(ol);
  }
  const strongest = Math.max(1e-9, ...a.features.map((f) => Math.abs(f.contribution)));
  const fields = $("fields");
  fields.replaceChildren();
  for (const f of a.fields) {
    const dd = el("dd");
    dd.append(painted(f.text, f.spans, a.toward, strongest));
    fields.append(el("dt", f.name), dd);
  }
  $("text").replaceChildren(painted(a.text, a.spans, a.toward, strongest));
  $("features").tBodies[0].replaceChildren(...a.features.slice(0, 25).map((f) => {
    const tr = el("tr");
    tr.append(el("td", f.feature), el("td", num(f.weight)), el("td", num(f.value)), el("td", num(f.contribution)));
    return tr;
  }));
  $("apart").replaceChildren(...a.apart.slice(0, 25).map((f) => el("li", `${f.feature}: ${num(f.contribution)}`)));
}

// The details of a word (its feature, weight and contribution), shown beside it while
// it is hovered or has the focus; Escape hides them, `tip(null)`.
let tipped = null; // the word whose details show

function tip(w) {
  const t = $("tip");
  tipped = w;
  const r = w && w.isConnected ? w.getBoundingClientRect() : null;
  // A word scrolled out of the text's box shows nothing.
  const box = r && w.closest(".text") ? w.closest(".text").getBoundingClientRect() : null;
  if (!r || (box && (r.bottom < box.top || r.top > box.bottom))) { t.hidden = true; return; }
  t.textContent = w.dataset.tip;
  t.hidden = false;
  const width = t.offsetWidth, height = t.offsetHeight;
  const left = Math.max(4, Math.min(r.left, document.documentElement.clientWidth - width - 4));
  const below = r.bottom + 4 + height <= document.documentElement.clientHeight;
  t.style.left = `${left}px`;
  t.style.top = `${below ? r.bottom + 4 : Math.max(4, r.top - height - 4)}px`;
}

// Arrow keys, Home and End move the focus among the words of one block (a header
// field or the text), which holds the one word of it that Tab reaches.
function moveAmongWords(ev) {
  const w = ev.target;
  if (!w.classList || !w.classList.contains("w")) {
    if (ev.key === "Escape") tip(null);
    return;
  }
  const words = [...w.parentElement.querySelectorAll(":scope > .w")];
  const i = words.indexOf(w);
  const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: words.length - 1 }[ev.key];
  if (ev.key === "Escape") { tip(null); return; }
  if (to === undefined || to < 0 || to >= words.length) return;
  ev.preventDefault();
  w.tabIndex = -1;
  words[to].tabIndex = 0;
  words[to].focus();
}

function wordEvents() {
  const result = $("result");
  const word = (ev) => (ev.target.classList && ev.target.classList.contains("w") ? ev.target : null);
  result.addEventListener("focusin", (ev) => tip(word(ev)));
  result.addEventListener("focusout", () => tip(null));
  result.addEventListener("mouseover", (ev) => { if (word(ev)) tip(word(ev)); });
  result.addEventListener("mouseout", (ev) => {
    if (word(ev)) tip(document.activeElement && document.activeElement.classList.contains("w") ? document.activeElement : null);
  });
  document.addEventListener("keydown", moveAmongWords);
  // The details follow their word when the page or the text scrolls.
  const follow = () => { if (tipped) tip(tipped); };
  window.addEventListener("scroll", follow, { passive: true });
  window.addEventListener("resize", follow, { passive: true });
  $("text").addEventListener("scroll", follow, { passive: true });
}

async function learn(cls) {
  if (!shown) { say("Explain a message first.", true); return; }
  const path = shown.id ? `/v1/learn?class=${cls}&id=${shown.id}` : `/v1/learn?class=${cls}`;
  try {
    const r = await ask(path, { method: "POST", body: shown.id ? "" : shown.text });
    if (shown.id) await recent(shown.id); else await explain();
    say(`Learned as ${r.learned}: score ${num(r.before.shown, 2)} → ${num(r.after.shown, 2)} (${r.before.spam ? "spam" : "ham"} → ${r.after.spam ? "spam" : "ham"}).`);
    refresh();
  } catch (e) { say(e.message, true); }
}

async function refresh() {
  try { facts(await ask("/v1/filter")); } catch (e) { say(e.message, true); }
  await history();
}

document.addEventListener("DOMContentLoaded", () => {
  $("explain-button").addEventListener("click", explain);
  $("learn-spam").addEventListener("click", () => learn("spam"));
  $("learn-ham").addEventListener("click", () => learn("ham"));
  // Ctrl+Enter (or ⌘+Enter) in the message explains it.
  $("message").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); explain(); }
  });
  wordEvents();
  refresh();
  setInterval(refresh, 10000);
});
