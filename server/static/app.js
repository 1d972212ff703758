// The search page. Every piece of data reaches the page through
// textContent or a vetted href, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const FACETS = ["site", "lang", "cluster_size", "date"];
const FACET_TITLES = { site: "Site", lang: "Language", cluster_size: "Copies in the cluster", date: "Date (month)" };
const LANGS = { zh: "Chinese", en: "English", ja: "Japanese", ko: "Korean", other: "other", "": "no text" };
const PAGE_SIZES = [10, 20, 50, 100];

// The page's state lives in its URL, so every view can be linked,
// bookmarked, and walked with back and forward:
//   q, syntax, collapse, sort, size, from, and the facet values (site,
//   lang, cluster_size, date, each repeatable): a search;
//   cluster: a cluster's page; doc: a document's page; similar: the
//   pages similar to a document;
//   a and b (with cluster, optional): the comparison of two documents.
const state = {
  q: "", syntax: "boolean", collapse: true, sort: "relevance", size: 10, from: 0,
  filters: {}, cluster: "", doc: "", similar: "", a: "", b: "",
};

function stateToURL() {
  const u = new URL(location.href);
  u.search = "";
  const p = u.searchParams;
  if (state.q !== "") {
    p.set("q", state.q);
    if (state.syntax !== "boolean") p.set("syntax", state.syntax);
    if (!state.collapse) p.set("collapse", "false");
    if (state.sort !== "relevance") p.set("sort", state.sort);
    if (state.size !== 10) p.set("size", String(state.size));
    if (state.from > 0) p.set("from", String(state.from));
    for (const f of FACETS) for (const v of state.filters[f] || []) p.append(f, v);
  }
  if (state.a && state.b) {
    if (state.cluster) p.set("cluster", state.cluster);
    p.set("a", state.a);
    p.set("b", state.b);
  } else if (state.cluster) {
    p.set("cluster", state.cluster);
  } else if (state.doc) {
    p.set("doc", state.doc);
  } else if (state.similar) {
    p.set("similar", state.similar);
  }
  return u;
}

function stateFromURL() {
  const p = new URLSearchParams(location.search);
  state.q = p.get("q") || "";
  state.syntax = p.get("syntax") === "querystring" ? "querystring" : "boolean";
  state.collapse = p.get("collapse") !== "false";
  state.sort = ["newest", "oldest"].includes(p.get("sort")) ? p.get("sort") : "relevance";
  const size = parseInt(p.get("size") || "10", 10);
  state.size = PAGE_SIZES.includes(size) ? size : 10;
  const from = parseInt(p.get("from") || "0", 10);
  state.from = Number.isFinite(from) && from > 0 ? from - (from % state.size) : 0;
  state.filters = {};
  for (const f of FACETS) if (p.getAll(f).length) state.filters[f] = p.getAll(f);
  state.cluster = p.get("cluster") || "";
  state.doc = p.get("doc") || "";
  state.similar = p.get("similar") || "";
  state.a = p.get("a") || "";
  state.b = p.get("b") || "";
  $("q").value = state.q;
  $("syntax").value = state.syntax;
  $("collapse").checked = state.collapse;
  $("sort").value = state.sort;
  $("page-size").value = String(state.size);
}

// navigate records the state as a new history entry and shows it.
function navigate() {
  const u = stateToURL();
  if (u.href !== location.href) history.pushState(null, "", u);
  show();
}

const VIEWS = ["overview", "search-view", "cluster-page", "doc-page", "similar-page", "cluster-view"];

function only(view) {
  for (const v of VIEWS) $(v).hidden = v !== view;
}

// show displays what the state says.
async function show() {
  const s = $("status");
  s.className = "";
  s.textContent = "";
  if (state.a && state.b) return openCompare();
  if (state.cluster) return openClusterPage(state.cluster);
  if (state.doc) return openDocPage(state.doc);
  if (state.similar) return openSimilarPage(state.similar);
  if (state.q === "") return openOverview();
  return search();
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// safeHref returns u if it is an http(s) URL, else null (no javascript:).
function safeHref(u) {
  try {
    const x = new URL(u);
    return x.protocol === "http:" || x.protocol === "https:" ? x.href : null;
  } catch (e) {
    return null;
  }
}

// link returns an anchor to a view of this page (params as in its URL),
// opened without a reload.
function link(text, params, className) {
  const a = el("a", className || "", text);
  const u = new URL(location.href);
  u.search = new URLSearchParams(params).toString();
  a.href = u.href;
  a.addEventListener("click", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    history.pushState(null, "", u);
    stateFromURL();
    show();
  });
  return a;
}

function external(text, url) {
  const href = safeHref(url);
  const a = el(href ? "a" : "span", "", text);
  if (href) {
    a.href = href;
    a.rel = "noopener noreferrer";
  }
  return a;
}

function titleText(title, copyTitle) {
  if (title) return title;
  if (copyTitle) return `(untitled; a copy is titled “${copyTitle}”)`;
  return "(untitled)";
}

async function api(path, params) {
  const u = new URL(path, location.href);
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const x of v) u.searchParams.append(k, String(x));
    else u.searchParams.set(k, String(v));
  }
  const r = await fetch(u);
  const body = await r.json();
  if (!r.ok) {
    const e = new Error(body.error || r.statusText);
    e.body = body;
    throw e;
  }
  return body;
}

function showError(err, query) {
  const s = $("status");
  s.className = "error";
  let msg = "Error: " + err.message;
  if (err.body && typeof err.body.pos === "number" && query !== undefined) {
    // pos is a byte offset; point the caret at the matching character.
    const bytes = new TextEncoder().encode(query).slice(0, err.body.pos);
    const chars = new TextDecoder().decode(bytes).length;
    msg += "\n" + query + "\n" + " ".repeat(chars) + "^";
  }
  s.textContent = msg;
}

function fmtInt(n) {
  return Number(n).toLocaleString("en-US");
}

function pct(x) {
  return `${Math.round(x * 1000) / 10}%`;
}

// --- The start page: the index at a glance --------------------------------

async function openOverview() {
  only("overview");
  let o;
  try {
    o = await api("api/overview", {});
  } catch (err) {
    showError(err);
    return;
  }
  const stats = $("stats");
  stats.replaceChildren();
  const rows = [
    ["documents", fmtInt(o.documents)],
    ["in the search index", fmtInt(o.indexed)],
    ["clusters", fmtInt(o.clusters)],
    ["with duplicates", fmtInt(o.duplicate_clusters)],
    ["copies suppressed", fmtInt(o.suppressed)],
    ["copies marked", fmtInt(o.marked)],
    ["sites", fmtInt(o.sites)],
    ["policy", `${o.policy}, ${o.measure}`],
    ["last update", o.last_update ? new Date(o.last_update).toLocaleString() : "—"],
  ];
  for (const [k, v] of rows) {
    const d = el("div");
    d.append(el("dt", "", k), el("dd", "", v));
    stats.append(d);
  }
  const largest = $("largest");
  largest.replaceChildren();
  for (const c of o.largest || []) {
    const li = el("li");
    li.append(link(c.title || c.copy_title || c.representative, { cluster: c.id }), " ", el("span", "meta", `${c.size} copies`));
    largest.append(li);
  }
  if (!(o.largest || []).length) largest.append(el("li", "meta", "no duplicates yet"));
  const counts = (ul, values, label) => {
    ul.replaceChildren();
    for (const v of values) ul.append(el("li", "", `${label(v.value)} ${fmtInt(v.documents)}`));
  };
  counts($("top-sites"), o.top_sites, (v) => v || "(no URL)");
  counts($("languages"), o.languages, (v) => LANGS[v] || v);
  const tbody = $("examples").tBodies[0];
  tbody.replaceChildren();
  for (const e of o.examples) {
    const tr = el("tr");
    const td = el("td");
    td.append(link(e.query, e.syntax === "boolean" ? { q: e.query } : { q: e.query, syntax: e.syntax }, "example"));
    tr.append(td, el("td", "meta", e.says));
    tbody.append(tr);
  }
}

// --- Search ---------------------------------------------------------------

// expanded holds the facets whose lists the reader opened: their values
// are asked for in full (up to the server's bound) while the page lives.
const expanded = new Set();

// focusAfterSearch is set when the reader submits the search form: once
// the results are in, keyboard focus goes to them, so that j, k and o
// move among the hits instead of typing into the query.
let focusAfterSearch = false;

function searchParams() {
  return {
    q: state.q, syntax: state.syntax, collapse: state.collapse, from: state.from, size: state.size,
    sort: state.sort, facets: true, expand: [...expanded], ...state.filters,
  };
}

async function search() {
  only("search-view");
  const wantFocus = focusAfterSearch;
  focusAfterSearch = false;
  const results = $("results");
  results.replaceChildren();
  $("no-results").hidden = true;
  $("pager").hidden = true;
  const s = $("status");
  s.textContent = "Searching…";
  let res;
  try {
    res = await api("api/search", searchParams());
  } catch (err) {
    // An error stands alone: no facets, sorting or pages of a search
    // that did not run.
    $("search-view").hidden = true;
    $("facets").replaceChildren();
    showError(err, state.q);
    if (wantFocus && err.body && typeof err.body.pos === "number") caretAt(err.body.pos);
    return;
  }
  results.start = res.from + 1;
  for (const h of res.hits) results.append(renderHit(h, res.sort));
  const n = res.collapse ? res.clusters : res.total;
  const unit = res.collapse ? (n === 1 ? "cluster" : "clusters") : (n === 1 ? "document" : "documents");
  const count = res.collapse ? (res.clusters_exact ? "" : "at least ") + fmtInt(res.clusters) : fmtInt(res.total);
  if (res.hits.length) {
    s.textContent = `Results ${res.from + 1}–${res.from + res.hits.length} of ${count} ${unit} (${fmtInt(res.total)} matching ${res.total === 1 ? "document" : "documents"}, ${res.took_ms} ms)`;
  } else {
    s.textContent = res.total > 0 ? `No results on this page: ${count} ${unit} in all` : `No results for “${res.query}”`;
    renderNoResults(res);
  }
  // A partial answer says so: shards that did not answer, parts left out.
  const missing = Object.keys(res.shard_errors || {});
  if (missing.length) s.textContent += ` — without ${missing.length === 1 ? "shard" : "shards"} ${missing.join(", ")}, which did not answer`;
  if (res.notice) s.textContent += ` — ${res.notice}`;
  $("view-options").hidden = res.hits.length === 0;
  renderFacets(res.facets || {});
  renderFilters();
  renderPager(res);
  focusHit(-1);
  if (wantFocus) results.focus();
}

// caretAt puts the caret in the query at byte offset pos, where a syntax
// error was found: the one place the reader will type next.
function caretAt(pos) {
  const q = $("q");
  const chars = new TextDecoder().decode(new TextEncoder().encode(q.value).slice(0, pos)).length;
  q.focus();
  q.setSelectionRange(chars, chars);
}

// renderNoResults says why a search may have found nothing and what to
// try: the query as the parser read it, and, when the search is
// narrowed, dropping a filter or unfolding the duplicates.
function renderNoResults(res) {
  const box = $("no-results");
  box.replaceChildren();
  box.hidden = false;
  if (res.total > 0) { // past the last page
    const b = el("button", "first-page", "Go to the first page");
    b.type = "button";
    b.addEventListener("click", () => goPage(1));
    box.append(el("p", "", "This page is past the last one. "), b);
    return;
  }
  box.append(el("h2", "", "Nothing found"));
  const tips = el("ul", "tips");
  if (res.parsed) {
    const li = el("li", "parsed");
    li.append("The query was read as ", el("code", "", res.parsed), ": every word must match a whole word, " +
      "AND, OR and NOT only in capitals, NOT before AND before OR.");
    tips.append(li);
  }
  const active = FACETS.flatMap((name) => (state.filters[name] || []).map((v) => [name, v]));
  if (active.length) {
    const li = el("li", "drop-filters");
    li.append(`The search is narrowed by ${active.length === 1 ? "a filter" : active.length + " filters"}; drop one: `);
    for (const [name, v] of active) {
      const b = el("button", "chip drop-filter", `${FACET_TITLES[name]}: ${facetLabel(name, v)} ×`);
      b.type = "button";
      b.addEventListener("click", () => toggleFilter(name, v, false));
      li.append(b, " ");
    }
    tips.append(li);
    if (res.collapse) {
      const u = el("li", "unfold");
      const b = el("button", "unfold-duplicates", "Unfold duplicates");
      b.type = "button";
      b.addEventListener("click", () => {
        state.collapse = false;
        state.from = 0;
        $("collapse").checked = false;
        navigate();
      });
      u.append(b, " to search every copy on its own.");
      tips.append(u);
    }
  }
  const li = el("li");
  li.append("Try fewer or other words, or a word's beginning in the bleve query string syntax (", el("code", "", "word*"), ").");
  tips.append(li);
  box.append(tips);
}

function renderHit(h, sort) {
  const li = el("li", "hit");
  li.dataset.id = h.id;
  li.tabIndex = -1;
  const h3 = el("h3");
  h3.append(external(titleText(h.title, h.copy_title), h.url));
  li.append(h3);
  const meta = el("p", "meta");
  const where = h.site || h.url || h.id;
  const score = sort === "relevance" ? `score ${h.score.toFixed(3)}` : new Date(h.date).toLocaleDateString();
  meta.append(`${where} · ${LANGS[h.lang] || h.lang} · ${score} · `, link("page", { doc: h.id }, "doc-link"),
    " · ", link("similar pages", { similar: h.id }, "similar-link"));
  if (h.cluster) meta.append(" · ", link(`cluster of ${h.cluster_size}`, { cluster: h.cluster }, "cluster-link"));
  li.append(meta);
  if (h.snippet && h.snippet.length) {
    const p = el("p", "snippet");
    for (const s of h.snippet) p.append(s.mark ? el("mark", "", s.text) : document.createTextNode(s.text));
    li.append(p);
  }
  if (h.folded > 0) {
    const button = el("button", "fold", `${h.folded} ${h.folded === 1 ? "copy" : "copies"}`);
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    const list = el("ul", "members");
    list.hidden = true;
    for (const m of h.members) {
      const item = el("li", "member");
      item.dataset.id = m.id;
      item.append(external(m.title || m.id, m.url), " ", el("span", "meta", m.url || m.id));
      if (!m.indexed) item.append(" ", el("span", "suppressed", "(suppressed)"));
      const cmp = el("button", "compare", "compare");
      cmp.type = "button";
      cmp.addEventListener("click", () => {
        Object.assign(state, { cluster: h.cluster, a: h.id, b: m.id, doc: "", similar: "" });
        navigate();
      });
      item.append(" ", cmp);
      list.append(item);
    }
    if (h.members.length < h.folded) list.append(el("li", "meta", `… and ${h.folded - h.members.length} more`));
    button.addEventListener("click", () => {
      list.hidden = !list.hidden;
      button.setAttribute("aria-expanded", String(!list.hidden));
    });
    li.append(button, list);
  }
  return li;
}

function facetLabel(facet, v) {
  if (facet === "lang") return LANGS[v] || v;
  if (facet === "site") return v || "(no URL)";
  if (facet === "date") return v || "(no date)";
  if (facet === "cluster_size") return v === "1" ? "1 (unique)" : v;
  return v;
}

// lastFacets are the facet counts shown, kept to open and close a
// facet's list without asking again.
let lastFacets = {};

function renderFacets(facets) {
  lastFacets = facets;
  const box = $("facets");
  box.replaceChildren();
  for (const name of FACETS) {
    const f = facets[name];
    // A facet without values (a search that found nothing) is no more
    // than an empty heading.
    if (!f || !f.values.length) continue;
    const fs = el("fieldset", "facet");
    fs.dataset.facet = name;
    fs.append(el("legend", "", FACET_TITLES[name]));
    const chosen = state.filters[name] || [];
    const open = expanded.has(name);
    const shown = open ? f.values : f.values.slice(0, FACET_VALUES);
    for (const v of shown) {
      const label = el("label", "facet-value");
      const box = el("input");
      box.type = "checkbox";
      box.value = v.value;
      box.checked = chosen.includes(v.value);
      box.addEventListener("change", () => toggleFilter(name, v.value, box.checked));
      label.append(box, " ", el("span", "name", facetLabel(name, v.value)), " ",
        el("span", "count", `${fmtInt(v.clusters)}`), el("span", "docs", ` / ${fmtInt(v.documents)}`));
      label.title = `${v.clusters} clusters, ${v.documents} documents`;
      fs.append(label);
    }
    const rest = f.total - shown.length;
    if (rest > 0 && !open) {
      const more = el("button", "facet-more", `show ${fmtInt(rest)} more`);
      more.type = "button";
      more.setAttribute("aria-expanded", "false");
      more.addEventListener("click", () => expandFacet(name));
      fs.append(more);
    } else if (open) {
      if (rest > 0) fs.append(el("p", "meta", `and ${fmtInt(rest)} more: narrow the search to see them`));
      if (shown.length > FACET_VALUES) {
        const fewer = el("button", "facet-more", "show fewer");
        fewer.type = "button";
        fewer.setAttribute("aria-expanded", "true");
        fewer.addEventListener("click", () => {
          expanded.delete(name);
          renderFacets(lastFacets);
          focusFacet(name, ".facet-more");
        });
        fs.append(fewer);
      }
    }
    box.append(fs);
  }
  if (box.childNodes.length) box.prepend(el("p", "meta", "clusters / documents"));
  $("search-view").classList.toggle("no-facets", !box.childNodes.length);
}

// FACET_VALUES is how many values of a facet the server lists unless
// asked for more, and the page shows of a closed list.
const FACET_VALUES = 20;

// expandFacet opens a facet's list: every value (up to the server's
// bound), asked for unless the counts shown hold them all already; the
// results stay as they are.
async function expandFacet(name) {
  expanded.add(name);
  const f = lastFacets[name];
  if (f && f.values.length < f.total) {
    const view = location.href;
    let res;
    try {
      res = await api("api/search", { ...searchParams(), from: 0, size: 1 });
    } catch (err) {
      showError(err, state.q);
      return;
    }
    if (location.href !== view) return; // the reader moved on meanwhile
    lastFacets = res.facets || {};
  }
  renderFacets(lastFacets);
  // On to the first value that was hidden, where the reader reads on.
  focusFacet(name, `.facet-value:nth-of-type(${FACET_VALUES + 1}) input`);
}

function focusFacet(name, selector) {
  const e = document.querySelector(`#facets fieldset[data-facet="${name}"] ${selector}`);
  if (e) e.focus();
}

function toggleFilter(name, value, on) {
  const cur = new Set(state.filters[name] || []);
  if (on) cur.add(value);
  else cur.delete(value);
  if (cur.size) state.filters[name] = [...cur];
  else delete state.filters[name];
  state.from = 0;
  navigate();
}

function renderFilters() {
  const box = $("filters");
  box.replaceChildren();
  for (const name of FACETS) {
    for (const v of state.filters[name] || []) {
      const b = el("button", "chip", `${FACET_TITLES[name]}: ${facetLabel(name, v)} ×`);
      b.type = "button";
      b.setAttribute("aria-label", `Remove the filter ${FACET_TITLES[name]} ${facetLabel(name, v)}`);
      b.addEventListener("click", () => toggleFilter(name, v, false));
      box.append(b);
    }
  }
}

function renderPager(res) {
  const total = res.collapse ? res.clusters : res.total;
  const pages = Math.max(1, Math.ceil(total / res.size));
  const cur = Math.floor(res.from / res.size) + 1;
  $("page").textContent = `page ${cur} of ${res.collapse && !res.clusters_exact ? "at least " : ""}${pages}`;
  $("prev").disabled = res.from === 0;
  $("next").disabled = res.hits.length < res.size || (cur >= pages && (!res.collapse || res.clusters_exact));
  const nums = $("pages");
  nums.replaceChildren();
  const want = new Set([1, pages, cur - 2, cur - 1, cur, cur + 1, cur + 2].filter((n) => n >= 1 && n <= pages));
  let last = 0;
  for (const n of [...want].sort((x, y) => x - y)) {
    if (n > last + 1) nums.append(el("span", "gap", "…"));
    const b = el("button", n === cur ? "page-number current" : "page-number", String(n));
    b.type = "button";
    if (n === cur) b.setAttribute("aria-current", "page");
    b.addEventListener("click", () => goPage(n));
    nums.append(b);
    last = n;
  }
  const jump = $("jump");
  jump.max = String(pages);
  jump.value = "";
  $("pager").hidden = res.hits.length === 0;
}

function goPage(n) {
  state.from = Math.max(0, (n - 1) * state.size);
  navigate();
}

// --- Keyboard: j/k move between hits, Enter opens one, o unfolds its
// copies, n/p turn pages, / goes to the query, Escape goes back.

let focused = -1;

function hits() {
  return [...document.querySelectorAll("#results > li.hit")];
}

function focusHit(i) {
  const hs = hits();
  for (const h of hs) h.classList.remove("focused");
  focused = Math.max(-1, Math.min(i, hs.length - 1));
  if (focused >= 0) {
    hs[focused].classList.add("focused");
    hs[focused].focus();
  }
}

// back returns to the previous view, or to the start page when this one
// was opened first.
function back() {
  if (history.length > 1) {
    history.back();
    return;
  }
  Object.assign(state, { cluster: "", doc: "", similar: "", a: "", b: "" });
  navigate();
}

function onKey(ev) {
  const t = ev.target;
  // Shortcuts stand down where keys type text or choose (the query, the
  // page box, a select), not on a facet's checkbox or a button.
  const typing = (t instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(t.type)) ||
    t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  if (ev.key === "Escape") {
    if (typing) {
      t.blur();
      return;
    }
    if (!$("search-view").hidden) return;
    ev.preventDefault();
    back();
    return;
  }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const searching = !$("search-view").hidden;
  switch (ev.key) {
    case "/":
      ev.preventDefault();
      $("q").focus();
      $("q").select();
      break;
    case "j":
    case "k":
      if (searching) {
        ev.preventDefault();
        focusHit(focused + (ev.key === "j" ? 1 : -1));
      }
      break;
    case "Enter":
      if (searching && focused >= 0 && t === hits()[focused]) {
        ev.preventDefault();
        hits()[focused].querySelector(".doc-link").click();
      }
      break;
    case "o":
      if (searching && focused >= 0) {
        const b = hits()[focused].querySelector(".fold");
        if (b) b.click();
      }
      break;
    case "n":
      if (searching && !$("next").disabled && !$("pager").hidden) $("next").click();
      break;
    case "p":
      if (searching && !$("prev").disabled && !$("pager").hidden) $("prev").click();
      break;
  }
}

// --- A cluster's page -----------------------------------------------------

// scoreOf returns the score of measure m in a verdict, if listed.
function scoreOf(v, m) {
  return (v.scores || []).find((s) => s.measure === m);
}

// valueText writes a measure's value: a share to three places, or Pugh's
// count of shared terms, which is no share.
function valueText(measure, value, unit) {
  if (unit === "terms" || (unit === undefined && measure === "pugh")) return `${fmtInt(value)} shared terms (a count)`;
  return value.toFixed(3);
}

// thresholdText writes a score's threshold as its measure applies it.
function thresholdText(s) {
  if (typeof s.threshold !== "number") return "";
  const op = s.strict ? ">" : "≥";
  return s.unit === "terms" ? `${op} ${fmtInt(s.threshold)} terms` : `${op} ${s.threshold.toFixed(3)}`;
}

function evidenceText(v) {
  if (!v) return "no stored signature";
  const decider = scoreOf(v, v.measure);
  return `${v.duplicate ? "duplicate" : "different"} by ${v.measure} ${valueText(v.measure, v.similarity, decider && decider.unit)} (${v.votes} agree); ` +
    `shared: ${v.shared_pieces} feature-string pieces, ${v.shared_blocks} blocks, ${v.shared_terms} terms`;
}

async function openClusterPage(id) {
  only("cluster-page");
  let c;
  try {
    c = await api("api/cluster", { id });
  } catch (err) {
    showError(err);
    return;
  }
  $("cluster-page-title").textContent = `Cluster ${c.id}: ${c.size} ${c.size === 1 ? "page" : "pages"}`;
  const note = $("cluster-note");
  note.hidden = !c.titled_copy;
  if (c.titled_copy) note.textContent = `The representative has no title; ${c.titled_copy} has one. ${c.representative_note}.`;
  const tbody = $("members").tBodies[0];
  tbody.replaceChildren();
  for (const m of c.members) {
    const tr = el("tr");
    tr.dataset.id = m.id;
    const page = el("td");
    page.append(link(m.title || "(untitled)", { doc: m.id }), el("br"), external(m.url || m.id, m.url));
    if (m.id === c.representative) page.append(" ", el("span", "badge", "representative"));
    const ev = el("td", "evidence", m.id === c.representative ? "—" : evidenceText(m.evidence));
    const act = el("td");
    if (m.id !== c.representative) act.append(link("compare", { cluster: c.id, a: c.representative, b: m.id }, "compare-link"));
    tr.append(page, el("td", "", m.site || "—"), el("td", "num", fmtInt(m.chars)),
      el("td", "", m.indexed ? "yes" : "suppressed"), ev, act);
    tbody.append(tr);
  }
  if (c.members.length < c.size) {
    const tr = el("tr");
    const td = el("td", "meta", `… and ${c.size - c.members.length} more`);
    td.colSpan = 6;
    tr.append(td);
    tbody.append(tr);
  }
}

// --- A document's page ----------------------------------------------------

async function openDocPage(id) {
  only("doc-page");
  let d;
  try {
    d = await api("api/doc", { id });
  } catch (err) {
    showError(err);
    return;
  }
  const h = $("doc-title");
  h.replaceChildren(external(d.title || "(untitled)", d.url));
  const meta = $("doc-meta");
  meta.replaceChildren(`${d.id} · ${d.site || "no URL"} · ${fmtInt(d.chars)} characters · ${d.indexed ? "in the search index" : "suppressed"} · `,
    link("similar pages", { similar: d.id }, "similar-link"));
  if (d.cluster) {
    meta.append(" · ", link(`cluster of ${d.cluster_size}`, { cluster: d.cluster }, "cluster-link"));
    if (d.representative && d.representative !== d.id) meta.append(" · represented by ", link(d.representative, { doc: d.representative }));
  }
  const text = $("doc-text");
  text.replaceChildren();
  for (const para of d.text.split("\n")) if (para.trim()) text.append(el("p", "", para));
  const near = $("nearest");
  near.replaceChildren();
  for (const m of d.nearest) {
    const li = el("li");
    li.append(link(m.title || m.id, { doc: m.id }), el("br"),
      el("span", "meta", evidenceText(m.evidence)), " ", link("compare", { cluster: d.cluster, a: d.id, b: m.id }, "compare-link"));
    near.append(li);
  }
  if (!d.nearest.length) near.append(el("li", "meta", "no copy: this page is alone in its cluster"));
}

// --- Similar pages --------------------------------------------------------

const GRADE_TITLES = {
  copy: "the filter takes them for copies: the pair passes its near-duplicate test, or it put them in one cluster",
  rewritten: "the same content below the copy thresholds: a story rewritten, or a page quoting much of the other (each holds 60% of the other's terms, or MinHash or the blocks agree)",
  related: "they share some features (MinHash bands, blocks, feature-string pieces), and no more",
};

// listsText writes the posting lists two pages share, by kind.
function listsText(l) {
  const parts = [];
  if (l.bands) parts.push(`${l.bands} MinHash ${l.bands === 1 ? "band" : "bands"}`);
  if (l.blocks) parts.push(`${l.blocks} ${l.blocks === 1 ? "block" : "blocks"}`);
  if (l.pieces) parts.push(`${l.pieces} feature-string ${l.pieces === 1 ? "piece" : "pieces"}`);
  if (l.terms) parts.push(`${l.terms} ${l.terms === 1 ? "term" : "terms"}`);
  return parts.length ? parts.join(", ") : "none: found through its cluster";
}

async function openSimilarPage(id) {
  only("similar-page");
  $("similar-title").textContent = `Pages similar to ${id}`;
  $("similar-meta").replaceChildren();
  const tbody = $("similar").tBodies[0];
  tbody.replaceChildren();
  let r;
  try {
    r = await api("api/similar", { id });
  } catch (err) {
    showError(err);
    return;
  }
  if (state.similar !== id) return; // the reader moved on meanwhile
  $("similar-title").textContent = `Pages similar to ${r.title || id}`;
  $("similar-meta").append(link("the page", { doc: id }, "doc-link"),
    ` · ${r.similar.length} similar ${r.similar.length === 1 ? "page" : "pages"}, copies first, found through the posting lists of its features in ${r.took_ms.toFixed(1)} ms`);
  r.similar.forEach((m, i) => {
    const tr = el("tr", "similar-row");
    tr.dataset.id = m.id;
    tr.dataset.grade = m.grade;
    const page = el("td");
    page.append(link(m.title || m.id, { doc: m.id }), el("br"), external(m.url || m.id, m.url));
    if (!m.indexed) page.append(" ", el("span", "suppressed", "(suppressed)"));
    if (m.same_cluster) page.append(" ", el("span", "badge", "same cluster"));
    const grade = el("span", `grade grade-${m.grade}`, m.grade);
    grade.title = GRADE_TITLES[m.grade] || "";
    const held = `${pct(m.holds)} of its terms / ${pct(m.held)} of theirs`;
    const act = el("td");
    act.append(link("compare", { a: id, b: m.id }, "compare-link"), " ", link("similar", { similar: m.id }, "similar-link"));
    tr.append(el("td", "num", String(i + 1)), page, el("td", "", ""), el("td", "num", m.score.toFixed(3)),
      el("td", "lists", listsText(m.lists)), el("td", "", held), el("td", "evidence", evidenceText(m.evidence)), act);
    tr.children[2].append(grade);
    tbody.append(tr);
  });
  if (!r.similar.length) {
    const tr = el("tr");
    const td = el("td", "meta", "no page shares a feature with this one");
    td.colSpan = 8;
    tr.append(td);
    tbody.append(tr);
  }
}

// --- Comparison -----------------------------------------------------------

async function openCompare() {
  only("cluster-view");
  const pickers = document.querySelector("#cluster-view .pickers");
  let members = [{ id: state.a }, { id: state.b }];
  let rep = "";
  if (state.cluster) {
    try {
      const c = await api("api/cluster", { id: state.cluster });
      members = c.members;
      rep = c.representative;
      $("cluster-title").textContent = `Cluster ${c.id}: ${c.size} pages`;
    } catch (err) {
      showError(err);
      return;
    }
  } else {
    $("cluster-title").textContent = "Comparison";
  }
  fillPickers(members, rep);
  pickers.hidden = false;
  await compare(!state.cluster);
}

// memberLabel names a document in the pickers: copies mostly share their
// title, so the site and id tell them apart.
function memberLabel(m, rep) {
  if (m.title === undefined) return m.id; // known by its id only, until compared
  return `${m.title || "(untitled)"} — ${m.site || "no URL"} · ${m.id}${m.id === rep ? " (representative)" : ""}`;
}

function fillPickers(members, rep) {
  for (const sel of [$("left-doc"), $("right-doc")]) {
    sel.replaceChildren();
    for (const m of members) {
      const o = el("option", "", memberLabel(m, rep));
      o.value = m.id;
      o.title = o.textContent;
      sel.append(o);
    }
  }
  $("left-doc").value = state.a;
  $("right-doc").value = state.b;
}

// compare shows the comparison of state.a and state.b; with pickers set,
// it fills the pickers with the two documents compared (a comparison
// without its cluster knows their titles only from it).
async function compare(pickers) {
  let c;
  try {
    c = await api("api/compare", { a: state.a, b: state.b });
  } catch (err) {
    showError(err);
    return;
  }
  if (pickers) fillPickers([c.a, c.b], "");
  fillColumn($("left"), c.a, c.left);
  fillColumn($("right"), c.b, c.right);
  renderVerdict(c.verdict);
  const st = c.stats;
  $("diff-stats").textContent =
    `${pct(st.left_share)} of the left's words and ${pct(st.right_share)} of the right's are shared; ` +
    `${st.left_shared_passages} of ${st.left_passages} passages on the left and ${st.right_shared_passages} of ${st.right_passages} on the right are mostly shared.`;
}

function renderVerdict(v) {
  const box = $("verdict");
  box.replaceChildren();
  if (!v) {
    box.append(el("p", "meta", "No stored signature for one of the pages: no verdict."));
    return;
  }
  box.className = "verdict " + (v.duplicate ? "dup" : "nodup");
  const decider = scoreOf(v, v.measure);
  const how = decider && decider.unit === "terms" ? valueText(v.measure, v.similarity, "terms") : `similarity ${v.similarity.toFixed(3)}`;
  box.append(el("p", "headline", `${v.duplicate ? "Near-duplicates" : "Different"}: decided by ${v.measure}, ${how}, ${v.votes} ${v.votes === 1 ? "measure agrees" : "measures agree"}`));
  const table = el("table", "scores");
  const head = el("tr");
  head.append(el("th", "", "measure"), el("th", "", "value"), el("th", "", "duplicate at"), el("th", "", "says duplicate"));
  table.append(head);
  for (const s of v.scores) {
    const tr = el("tr", s.decides ? "" : "idle");
    tr.dataset.measure = s.measure;
    const threshold = el("td", "threshold", thresholdText(s));
    if (s.condition) threshold.append(el("span", "condition", ` and ${s.condition}`));
    tr.append(el("td", "", s.measure), el("td", "num value", s.decides ? valueText(s.measure, s.value, s.unit) : "—"), threshold,
      el("td", "", s.decides ? (s.duplicate ? "yes" : "no") : "not used"));
    table.append(tr);
  }
  box.append(table);
  const ev = `Shared: ${v.shared_pieces} feature-string pieces (in order), ${v.shared_blocks} block fingerprints, ${v.shared_terms} terms` +
    (v.term_sample.length ? ` (e.g. ${v.term_sample.join(" ")})` : "") + ".";
  box.append(el("p", "evidence", ev));
}

function fillColumn(article, doc, passages) {
  const h = article.querySelector("h3");
  h.replaceChildren(link(doc.title || "(untitled)", { doc: doc.id }));
  const meta = article.querySelector(".meta");
  meta.replaceChildren(`${doc.id} · ${doc.site || "no URL"} · ${fmtInt(doc.chars)} characters${doc.indexed ? "" : " (suppressed)"} · `, external("original", doc.url));
  const text = article.querySelector(".text");
  text.replaceChildren();
  let p = el("p");
  for (const ps of passages) {
    const span = el("span", "passage " + ps.status);
    for (const pc of ps.pieces) span.append(pc.op ? el("span", pc.op, pc.text) : document.createTextNode(pc.text));
    p.append(span, " ");
    if (ps.break) {
      text.append(p);
      p = el("p");
    }
  }
  if (p.childNodes.length) text.append(p);
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    // Focus leaves the query box (search() puts it on the results), so
    // that the keys typed next are shortcuts, not more query.
    $("q").blur();
    focusAfterSearch = true;
    Object.assign(state, { q: $("q").value, syntax: $("syntax").value, collapse: $("collapse").checked, from: 0, cluster: "", doc: "", similar: "", a: "", b: "" });
    navigate();
  });
  $("sort").addEventListener("change", () => { state.sort = $("sort").value; state.from = 0; navigate(); });
  $("page-size").addEventListener("change", () => { state.size = parseInt($("page-size").value, 10); state.from = 0; navigate(); });
  $("prev").addEventListener("click", () => { state.from = Math.max(0, state.from - state.size); navigate(); });
  $("next").addEventListener("click", () => { state.from += state.size; navigate(); });
  $("jump-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const n = parseInt($("jump").value, 10);
    if (Number.isFinite(n) && n >= 1) goPage(Math.min(n, parseInt($("jump").max || String(n), 10)));
  });
  $("left-doc").addEventListener("change", () => { state.a = $("left-doc").value; history.replaceState(null, "", stateToURL()); compare(); });
  $("right-doc").addEventListener("change", () => { state.b = $("right-doc").value; history.replaceState(null, "", stateToURL()); compare(); });
  $("close-cluster").addEventListener("click", back);
  $("home").addEventListener("click", (ev) => {
    ev.preventDefault();
    Object.assign(state, { q: "", filters: {}, from: 0, cluster: "", doc: "", similar: "", a: "", b: "" });
    $("q").value = "";
    navigate();
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => { stateFromURL(); show(); });
  stateFromURL();
  show();
});
