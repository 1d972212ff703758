// The search page. Every piece of data reaches the page through
// textContent or a vetted href, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { q: "", syntax: "boolean", collapse: true, from: 0, size: 10, cluster: "", a: "", b: "" };

// The page's state lives in its URL (?q=...&syntax=...&collapse=...&from=...,
// and cluster, a, b for the comparison view), so a search can be linked,
// bookmarked, and walked with back and forward.
function stateToURL() {
  const u = new URL(location.href);
  u.search = "";
  if (state.q !== "") {
    u.searchParams.set("q", state.q);
    if (state.syntax !== "boolean") u.searchParams.set("syntax", state.syntax);
    if (!state.collapse) u.searchParams.set("collapse", "false");
    if (state.from > 0) u.searchParams.set("from", String(state.from));
  }
  if (state.cluster) {
    u.searchParams.set("cluster", state.cluster);
    u.searchParams.set("a", state.a);
    u.searchParams.set("b", state.b);
  }
  return u;
}

function stateFromURL() {
  const p = new URLSearchParams(location.search);
  state.q = p.get("q") || "";
  state.syntax = p.get("syntax") === "querystring" ? "querystring" : "boolean";
  state.collapse = p.get("collapse") !== "false";
  const from = parseInt(p.get("from") || "0", 10);
  state.from = Number.isFinite(from) && from > 0 ? from - (from % state.size) : 0;
  state.cluster = p.get("cluster") || "";
  state.a = p.get("a") || "";
  state.b = p.get("b") || "";
  $("q").value = state.q;
  $("syntax").value = state.syntax;
  $("collapse").checked = state.collapse;
}

// navigate records the state as a new history entry and shows it.
function navigate() {
  const u = stateToURL();
  if (u.href !== location.href) history.pushState(null, "", u);
  show();
}

// show displays what the state says: the comparison view, or a search.
async function show() {
  if (state.cluster) {
    await openCluster(state.cluster, state.a, state.b);
    return;
  }
  $("cluster-view").hidden = true;
  $("results").hidden = false;
  if (state.q === "") {
    $("results").replaceChildren();
    $("pager").hidden = true;
    $("status").textContent = "";
    return;
  }
  await search();
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

function titleOrLink(tag, title, url) {
  const h = el(tag);
  const href = safeHref(url);
  const a = el(href ? "a" : "span", "", title || "(untitled)");
  if (href) {
    a.href = href;
    a.rel = "noopener noreferrer";
  }
  h.append(a);
  return h;
}

async function api(path, params) {
  const u = new URL(path, location.href);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
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

async function search() {
  $("cluster-view").hidden = true;
  const results = $("results");
  results.replaceChildren();
  $("pager").hidden = true;
  const s = $("status");
  s.className = "";
  s.textContent = "Searching…";
  let res;
  try {
    res = await api("api/search", { q: state.q, syntax: state.syntax, collapse: state.collapse, from: state.from, size: state.size });
  } catch (err) {
    showError(err, state.q);
    return;
  }
  results.start = res.from + 1;
  for (const h of res.hits) results.append(renderHit(h));
  const unit = res.collapse ? "clusters" : "documents";
  const count = res.collapse ? (res.clusters_exact ? "" : "at least ") + res.clusters : res.total;
  const first = res.hits.length ? res.from + 1 : 0;
  s.textContent = `Results ${first}–${res.from + res.hits.length} of ${count} ${unit} (${res.total} matching documents, ${res.took_ms} ms)`;
  $("page").textContent = `page ${Math.floor(res.from / res.size) + 1}`;
  $("prev").disabled = res.from === 0;
  $("next").disabled = res.hits.length < res.size || (res.from + res.size >= (res.collapse ? res.clusters : res.total) && (!res.collapse || res.clusters_exact));
  $("pager").hidden = res.hits.length === 0;
}

function renderHit(h) {
  const li = el("li", "hit");
  li.dataset.id = h.id;
  li.append(titleOrLink("h3", h.title, h.url));
  li.append(el("p", "meta", `${h.url || h.id} · score ${h.score.toFixed(3)} · cluster ${h.cluster}`));
  if (h.snippet && h.snippet.length) {
    const p = el("p", "snippet");
    for (const s of h.snippet) p.append(s.mark ? el("mark", "", s.text) : document.createTextNode(s.text));
    li.append(p);
  }
  if (h.folded > 0) {
    const button = el("button", "fold", `${h.folded} similar ${h.folded === 1 ? "page" : "pages"}`);
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    const list = el("ul", "members");
    list.hidden = true;
    for (const m of h.members) {
      const item = el("li", "member");
      item.dataset.id = m.id;
      const href = safeHref(m.url);
      const name = el(href ? "a" : "span", "", m.title || m.id);
      if (href) {
        name.href = href;
        name.rel = "noopener noreferrer";
      }
      item.append(name, " ", el("span", "meta", m.url || m.id));
      if (!m.indexed) item.append(" ", el("span", "suppressed", "(suppressed)"));
      const cmp = el("button", "compare", "compare");
      cmp.type = "button";
      cmp.addEventListener("click", () => {
        state.cluster = h.cluster;
        state.a = h.id;
        state.b = m.id;
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

async function openCluster(clusterID, a, b) {
  let c;
  try {
    c = await api("api/cluster", { id: clusterID });
  } catch (err) {
    showError(err);
    return;
  }
  $("cluster-title").textContent = `Cluster ${c.id}: ${c.members.length} pages`;
  for (const sel of [$("left-doc"), $("right-doc")]) {
    sel.replaceChildren();
    for (const m of c.members) {
      const o = el("option", "", (m.title || m.id) + (m.id === c.representative ? " (representative)" : ""));
      o.value = m.id;
      sel.append(o);
    }
  }
  $("left-doc").value = a;
  $("right-doc").value = b;
  $("results").hidden = true;
  $("pager").hidden = true;
  $("cluster-view").hidden = false;
  await compare();
}

async function compare() {
  let c;
  try {
    c = await api("api/compare", { a: $("left-doc").value, b: $("right-doc").value });
  } catch (err) {
    showError(err);
    return;
  }
  fillColumn($("left"), c.a, c.left);
  fillColumn($("right"), c.b, c.right);
  const shared = c.left.filter((p) => p.shared).length;
  $("status").className = "";
  $("status").textContent = `${shared} of ${c.left.length} passages on the left are shared with the right`;
}

function fillColumn(article, doc, passages) {
  article.querySelector("h3").replaceChildren(titleOrLink("span", doc.title, doc.url));
  article.querySelector(".meta").textContent = `${doc.id}${doc.indexed ? "" : " (suppressed)"}`;
  const text = article.querySelector(".text");
  text.replaceChildren();
  let p = el("p");
  for (const ps of passages) {
    p.append(el("span", ps.shared ? "shared" : "differs", ps.text), " ");
    if (ps.break) {
      text.append(p);
      p = el("p");
    }
  }
  if (p.childNodes.length) text.append(p);
}

function closeCluster() {
  state.cluster = "";
  navigate();
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.q = $("q").value;
    state.syntax = $("syntax").value;
    state.collapse = $("collapse").checked;
    state.from = 0;
    state.cluster = "";
    navigate();
  });
  $("prev").addEventListener("click", () => { state.from = Math.max(0, state.from - state.size); navigate(); });
  $("next").addEventListener("click", () => { state.from += state.size; navigate(); });
  $("left-doc").addEventListener("change", () => { state.a = $("left-doc").value; history.replaceState(null, "", stateToURL()); compare(); });
  $("right-doc").addEventListener("change", () => { state.b = $("right-doc").value; history.replaceState(null, "", stateToURL()); compare(); });
  $("close-cluster").addEventListener("click", closeCluster);
  window.addEventListener("popstate", () => { stateFromURL(); show(); });
  stateFromURL();
  show();
});
