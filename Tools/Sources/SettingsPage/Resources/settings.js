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
