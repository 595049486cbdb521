/// The pages' script and style sheet, served as `/assets/settings.js` and
/// `/assets/settings.css`. Kept in the binary, not as resource files, so an installed
/// `preferences-settings` needs nothing beside it; the pages allow no inline script or style
/// (see the server's Content-Security-Policy), so these are all the code a page runs.
package enum SettingsAssets {
    /// The script: search on the list page; on a domain page, changes sent as transactions,
    /// refusals shown beside their controls, rows kept live from Server-Sent Events.
    package static let script = #"""
// The settings pages' script: search on the list page; on a domain page, changes sent to the
// server, refusals shown beside their controls, and rows kept live from the server's
// Server-Sent Events. Served as /assets/settings.js (the pages allow no inline script).
"use strict";
(() => {
  const search = document.getElementById("domain-search");
  if (search) {
    const filter = () => {
      const needle = search.value.trim().toLowerCase();
      for (const item of document.querySelectorAll("li[data-domain]")) {
        const words = (item.dataset.domain + " " + item.textContent).toLowerCase();
        item.hidden = needle !== "" && !words.includes(needle);
      }
    };
    search.addEventListener("input", filter);
    filter();
  }

  const domain = document.body.dataset.domain;
  const form = document.querySelector("form[data-pane-form]");
  if (!domain || !form) return;
  const pane = document.body.dataset.pane || "Root";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const base = "/domains/" + encodeURIComponent(domain);
  const status = document.getElementById("live-status");
  // Keys whose typed value the user has edited and not yet saved: live updates leave their
  // values alone (a change from elsewhere must not erase what is being typed).
  const dirty = new Set();

  const rowOf = (key) => document.querySelector(`[data-row="${CSS.escape(key)}"]`);
  const applied = (keys) => document.dispatchEvent(new CustomEvent("preferences:applied", { detail: { keys } }));

  // Brings `from` to look like `to` in place, so the focused control keeps focus and the
  // caret stays where it was; values are copied unless `keepValues` (a dirty row).
  function morph(from, to, keepValues) {
    if (from.nodeType !== to.nodeType || from.nodeName !== to.nodeName) {
      from.replaceWith(to.cloneNode(true));
      return;
    }
    if (from.nodeType === Node.TEXT_NODE) {
      if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
      return;
    }
    if (from.nodeType !== Node.ELEMENT_NODE) return;
    for (const attribute of [...from.attributes]) if (!to.hasAttribute(attribute.name)) from.removeAttribute(attribute.name);
    for (const attribute of to.attributes) if (from.getAttribute(attribute.name) !== attribute.value) from.setAttribute(attribute.name, attribute.value);
    const source = [...from.childNodes], target = [...to.childNodes];
    target.forEach((node, index) => index < source.length ? morph(source[index], node, keepValues) : from.appendChild(node.cloneNode(true)));
    source.slice(target.length).forEach((node) => node.remove());
    if (keepValues) return;
    if (from instanceof HTMLInputElement) {
      if (from.type === "checkbox" || from.type === "radio") from.checked = to.hasAttribute("checked");
      else from.value = to.getAttribute("value") ?? "";
    } else if (from instanceof HTMLSelectElement) {
      const selected = to.querySelector("option[selected]");
      from.value = selected ? selected.getAttribute("value") : "";
    }
  }

  function applyRows(rows) {
    for (const { key, html } of rows) {
      const row = rowOf(key);
      if (!html) { row?.remove(); dirty.delete(key); continue; }
      const template = document.createElement("template");
      template.innerHTML = html;
      const next = template.content.firstElementChild;
      if (row) morph(row, next, dirty.has(key));
      else document.querySelector("#other-keys .rows")?.append(next);
    }
  }

  function applyHistory(html) {
    const history = document.getElementById("history");
    if (!history || !html) return;
    const template = document.createElement("template");
    template.innerHTML = html;
    morph(history, template.content.firstElementChild, false);
  }

  function showMessages(errors) {
    for (const message of document.querySelectorAll("[data-message-for]")) {
      message.textContent = errors[message.dataset.messageFor] ?? "";
    }
  }

  async function post(path, body) {
    const response = await fetch(base + path + "?pane=" + encodeURIComponent(pane), {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    let reply = {};
    try { reply = await response.json(); } catch { reply = { ok: false, error: `the server answered ${response.status}` }; }
    return reply;
  }

  // Sends changes as one transaction; on success the rows come back as the server now has
  // them, on refusal each message goes beside its control and nothing was written.
  async function commit(changes) {
    const keys = changes.map((change) => change.key);
    const reply = await post("/changes", { changes });
    if (reply.ok) {
      keys.forEach((key) => dirty.delete(key));
      showMessages({});
      applyRows(reply.rows ?? []);
      applyHistory(reply.history);
    } else {
      const errors = reply.errors ?? {};
      if (!reply.errors && keys.length) errors[keys[0]] = reply.error ?? "refused";
      showMessages(errors);
    }
    applied(keys);
    return reply.ok;
  }

  // Reads a typed tree node back into the form the server reads (see ValueTree.swift).
  function readNode(node) {
    const type = node.dataset.type;
    const leaf = node.querySelector(":scope > [data-leaf]");
    const entries = () => [...node.querySelectorAll(":scope > .entries > .entry")];
    switch (type) {
      case "array": return { type, items: entries().map((entry) => readNode(entry.querySelector(":scope > .node"))) };
      case "dictionary": return { type, entries: entries().map((entry) => ({ name: entry.dataset.name, node: readNode(entry.querySelector(":scope > .node")) })) };
      case "boolean": return { type, value: leaf.checked };
      default: return { type, value: leaf.value };
    }
  }

  // The change a row's control asks for.
  function changeOf(row) {
    const key = row.dataset.row;
    const control = row.querySelector("[data-key]");
    switch (row.dataset.control) {
      case "toggle": return { key, value: { toggle: control.checked } };
      case "choice": return { key, value: { choice: Number(control.value) } };
      case "radio": {
        const checked = row.querySelector("input[type=radio]:checked");
        return checked ? { key, value: { choice: Number(checked.value) } } : null;
      }
      case "slider": return { key, value: { number: row.querySelector("[data-part=number]").value } };
      case "number": return { key, value: { number: control.value } };
      case "text": return { key, value: { string: control.value } };
      case "date": return { key, value: { date: control.value } };
      case "data": return { key, value: { data: control.value } };
      case "tree": {
        const node = row.querySelector(".tree > .node");
        return node ? { key, value: { plist: readNode(node) } } : null;
      }
      default: return null;
    }
  }

  const immediate = new Set(["toggle", "choice", "radio"]);
  form.addEventListener("change", (event) => {
    const row = event.target.closest("[data-row]");
    if (!row) return;
    const kind = row.dataset.control;
    if (kind === "slider" && event.target.type === "range") {
      row.querySelector("[data-part=number]").value = event.target.value;
      const change = changeOf(row);
      commit([change]);
    } else if (immediate.has(kind)) {
      const change = changeOf(row);
      if (change) commit([change]);
    } else {
      dirty.add(row.dataset.row);
    }
  });
  form.addEventListener("input", (event) => {
    const row = event.target.closest("[data-row]");
    if (!row || immediate.has(row.dataset.control)) return;
    if (row.dataset.control === "slider" && event.target.type === "range") {
      row.querySelector("[data-part=number]").value = event.target.value;
      return;
    }
    dirty.add(row.dataset.row);
  });
  // Save (or Enter in a field): every edited typed value, as one transaction.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const changes = [...dirty].map((key) => rowOf(key)).filter(Boolean).map(changeOf).filter(Boolean);
    if (changes.length) commit(changes);
  });
  form.addEventListener("click", (event) => {
    const target = event.target;
    if (target.matches("[data-reset-for]")) {
      commit([{ key: target.dataset.resetFor, reset: true }]);
    } else if (target.matches("[data-remove]")) {
      const row = target.closest("[data-row]");
      target.closest(".entry").remove();
      dirty.add(row.dataset.row);
    } else if (target.matches("[data-add]")) {
      const row = target.closest("[data-row]");
      const add = target.closest(".add");
      const container = add.parentElement;
      const type = add.querySelector("[data-add-type]").value;
      const nameInput = add.querySelector("[data-add-name]");
      const isDictionary = container.dataset.type === "dictionary";
      const name = nameInput ? nameInput.value.trim() : "";
      const message = row.querySelector("[data-message-for]");
      if (isDictionary && (!name || [...container.querySelectorAll(":scope > .entries > .entry")].some((entry) => entry.dataset.name === name))) {
        message.textContent = name ? `${name} is already there` : "Give the new entry a name";
        return;
      }
      const template = document.getElementById("tree-templates").content.querySelector(`.node[data-type="${type}"]`).cloneNode(true);
      const entry = document.createElement("li");
      entry.className = "entry";
      const list = container.querySelector(":scope > .entries");
      const label = document.createElement("span");
      label.className = "entry-name";
      label.textContent = isDictionary ? name : String(list.children.length);
      if (isDictionary) entry.dataset.name = name;
      const remove = document.createElement("button");
      remove.type = "button"; remove.className = "small"; remove.dataset.remove = ""; remove.textContent = "Remove";
      entry.append(label, " ", template, remove);
      list.append(entry);
      if (nameInput) nameInput.value = "";
      message.textContent = "";
      dirty.add(row.dataset.row);
      template.querySelector("[data-leaf]")?.focus();
    }
  });

  document.addEventListener("click", async (event) => {
    const target = event.target;
    let reply = null;
    if (target.matches("[data-undo]")) reply = await post("/undo", {});
    else if (target.matches("[data-restore]")) reply = await post("/restore", { generation: Number(target.dataset.restore) });
    else return;
    if (reply.ok) {
      const keys = (reply.rows ?? []).map((row) => row.key);
      keys.forEach((key) => dirty.delete(key));
      applyRows(reply.rows ?? []);
      applyHistory(reply.history);
      showMessages({});
      applied(keys);
    } else {
      status.textContent = reply.error ?? "The change was refused";
    }
  });

  // Live: the server sends the rows of every key changed anywhere (another process, the
  // defaults tool, a hand edit, another page) as the store's own observation reports them.
  const events = new EventSource(base + "/events?pane=" + encodeURIComponent(pane));
  events.addEventListener("open", () => { status.textContent = "Live: changes made elsewhere appear here at once."; });
  events.addEventListener("error", () => { status.textContent = "Reconnecting…"; });
  events.addEventListener("change", (event) => {
    const data = JSON.parse(event.data);
    applyRows(data.rows ?? []);
    applyHistory(data.history);
    applied((data.rows ?? []).map((row) => row.key));
  });
})();
"""#

    /// The style sheet: grouped rows in the manner of the iOS Settings app, light and dark.
    package static let styleSheet = #"""
/* The settings pages: grouped rows in the manner of the iOS Settings app, light and dark. */
:root { color-scheme: light dark; --bg: #f2f2f7; --card: #fff; --text: #1c1c1e; --muted: #6c6c70; --line: #d1d1d6; --accent: #0a64d8; --warn: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --bg: #000; --card: #1c1c1e; --text: #f2f2f7; --muted: #a1a1a6; --line: #38383a; --accent: #4c9bff; --warn: #ff6b60; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; background: var(--bg); color: var(--text); font: 15px/1.4 system-ui, "DejaVu Sans", sans-serif; }
h1 { font-size: 1.8rem; margin: 0.2rem 0; }
h2 { font-size: 0.8rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 0 0 0.4rem 0.9rem; }
a { color: var(--accent); }
.crumbs, .subtitle, #live-status, .help, .footer, .key-name, .unit { color: var(--muted); font-size: 0.85rem; }
.footer { margin: 0.4rem 0.9rem 0; }
section.group, #history { margin: 1.4rem 0; }
section.group > .setting:first-of-type, section.group > h2 + .setting { border-top-left-radius: 10px; border-top-right-radius: 10px; }
.setting { display: grid; grid-template-columns: minmax(12rem, 1fr) minmax(12rem, 1.2fr); gap: 0.2rem 1rem; align-items: center; background: var(--card); padding: 0.7rem 0.9rem; border-bottom: 1px solid var(--line); }
.setting:last-child { border-bottom: 0; }
.setting .meta, .setting .message { grid-column: 1 / -1; margin: 0; }
.setting .message:empty { display: none; }
.setting .message { color: var(--warn); font-weight: 600; }
.setting[data-locked] { opacity: 0.75; }
.setting.link a { grid-column: 1 / -1; text-decoration: none; font-weight: 500; }
.about label, .about .title { font-weight: 500; }
.about p { margin: 0.1rem 0 0; }
.meta { font-size: 0.8rem; color: var(--muted); display: flex; gap: 0.6rem; align-items: center; flex-wrap: wrap; }
.changed { color: var(--accent); }
input[type=text], input[type=password], input[type=email], input[type=url], input[type=number], input[type=datetime-local], select { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--card); color: var(--text); max-width: 100%; }
input.exact { width: 6rem; }
input[type=range] { width: 60%; vertical-align: middle; }
input[type=checkbox][role=switch] { appearance: none; width: 2.8rem; height: 1.6rem; border-radius: 1rem; background: var(--line); position: relative; cursor: pointer; transition: background 0.15s; }
input[type=checkbox][role=switch]::after { content: ""; position: absolute; top: 0.15rem; left: 0.15rem; width: 1.3rem; height: 1.3rem; border-radius: 50%; background: #fff; box-shadow: 0 1px 2px #0004; transition: left 0.15s; }
input[type=checkbox][role=switch]:checked { background: #34c759; }
input[type=checkbox][role=switch]:checked::after { left: 1.35rem; }
input:focus-visible, select:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
fieldset { border: 0; margin: 0; padding: 0; }
.radio { padding: 0.15rem 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
button { font: inherit; padding: 0.35rem 0.9rem; border-radius: 8px; border: 1px solid var(--line); background: var(--card); color: var(--accent); cursor: pointer; }
button.small { padding: 0.1rem 0.5rem; font-size: 0.8rem; }
button[data-save] { background: var(--accent); color: #fff; border-color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
.actions { margin: 1rem 0; }
.tree .entries { margin: 0.2rem 0; padding-left: 1.2rem; }
.tree .entry { margin: 0.2rem 0; }
.tree .type, .tag { font-size: 0.75rem; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 0.3rem; }
.tree .entry-name { font-family: monospace; }
.mono { font-family: monospace; }
.warning { color: var(--warn); }
#other-keys:has(.rows:empty) { display: none; }
.setting[data-locked] .origin { font-weight: 600; }
#history ol { list-style: none; background: var(--card); border-radius: 10px; padding: 0.5rem 0.9rem; margin: 0; }
#history li { padding: 0.25rem 0; font-size: 0.85rem; }
#history li[data-current] { font-weight: 600; }
ul.domains { list-style: none; padding: 0; background: var(--card); border-radius: 10px; }
ul.domains li { padding: 0.6rem 0.9rem; border-bottom: 1px solid var(--line); }
ul.domains li:last-child { border-bottom: 0; }
#domain-search { width: 100%; padding: 0.5rem 0.8rem; font: inherit; border-radius: 10px; border: 1px solid var(--line); }
"""#
}
