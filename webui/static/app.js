/* Home Agent UI: progressive enhancement only. Every page works without this file.
 *
 * The chat form streams its reply: the form is posted with fetch to the URL in its
 * data-stream-url attribute and the answer is read as Server-Sent Events ("text" chunks, then
 * "done" with the link to the turn's trace). Text is only ever set with textContent, never as
 * HTML, because replies come from a language model.
 *
 * The custom tool editor's textarea becomes a CodeMirror 5 editor (vendored under
 * static/vendor/codemirror) with YAML or JSON highlighting; the server's problems, listed under
 * #problems with the line each concerns, are shown as widgets under those lines.
 * The editor's text is the definition's one truth and the fields above it (name, description,
 * kind, timeout, enabled) are views of its top-level keys: typing in a field rewrites that key's
 * line only, editing the text updates the fields, and choosing another kind replaces the old
 * kind's settings section with the new kind's example (from the select's data-examples). The
 * server does the same with a form posted without script, and judges the text either way.
 *
 * The Evaluate page reads a chosen task file into its text area (forms are never multipart),
 * and a run's page polls its progress URL, moving the progress bar and swapping in the rows
 * and totals the server rendered (escaped there like every page), until the run ends.
 *
 * On the MCP servers page a tool's forms (marked data-in-place) post with fetch; the answer is
 * the page the form would have gone to, and only that tool's row and the notice are swapped in,
 * so a switch keeps the reader's place in a long list. Should the fetch fail the form is sent
 * the ordinary way.
 *
 * On a phone the one-row tab bar scrolls to show the current section's tab.
 */
"use strict";

(function () {
  /* On a phone the tab bar is one row that scrolls sideways (app.css): the current section's
     tab is brought into sight, centred where the bar allows, without moving the page. */
  const tabBar = document.querySelector(".tabs");
  const currentTab = tabBar && tabBar.querySelector(".tab.active");
  if (currentTab && tabBar.scrollWidth > tabBar.clientWidth) {
    const offset = currentTab.getBoundingClientRect().left - tabBar.getBoundingClientRect().left;
    tabBar.scrollLeft += offset - (tabBar.clientWidth - currentTab.offsetWidth) / 2;
  }

  const ANSWERED_BY = { local: "local", llm: "model", failed: "failed" };

  function addMessage(log, role, text) {
    const item = document.createElement("li");
    item.className = "message " + role;
    const bubble = document.createElement("p");
    bubble.className = "bubble";
    bubble.textContent = text;
    item.appendChild(bubble);
    log.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  /* What the add-on checks as a PIN (addon.agent.confirm.pin_like): 3 to 12 digits, and
     fewer letters than digits ("4711", "PIN 4 7 1 1"). */
  function pinLike(text) {
    const digits = (text.match(/\d/g) || []).length;
    const letters = (text.match(/\p{L}/gu) || []).length;
    return digits >= 3 && digits <= 12 && letters < digits;
  }

  function addMeta(item, parts) {
    const meta = document.createElement("p");
    meta.className = "meta";
    parts.forEach(function (part, index) {
      if (index > 0) meta.appendChild(document.createTextNode(" · "));
      if (part.href) {
        const link = document.createElement("a");
        link.href = part.href;
        link.textContent = part.text;
        meta.appendChild(link);
      } else {
        const span = document.createElement("span");
        span.className = part.className || "";
        span.textContent = part.text;
        meta.appendChild(span);
      }
    });
    item.appendChild(meta);
  }

  /* Split complete events off the buffer; returns what is left (a partial event). */
  function drainEvents(buffer, onEvent) {
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data = [];
      block.split("\n").forEach(function (line) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      });
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      end = buffer.indexOf("\n\n");
    }
    return buffer;
  }

  function refusal(response) {
    if (response.status === 403) return "The page was stale; reload it and try again.";
    if (response.status === 400) return "That could not be sent (" + response.status + ").";
    return "The add-on answered " + response.status + ".";
  }

  /* A held action waits for the answer: Yes and No buttons (which send the words, as typed
     text would), or, for a PIN, a masked field in place of the text box. */
  function answerControls(form, textBox) {
    const pin = document.getElementById("chat-pin");
    const answer = document.getElementById("chat-answer");
    const yes = answer ? answer.querySelector(".chat-yes") : null;
    const controls = {
      field: function () { return pin && !pin.disabled ? pin : textBox; },
      awaiting: function () { return pin && !pin.disabled ? "pin" : null; },
      show: function (method) {
        const asksPin = method === "pin" && pin;
        if (pin) {
          pin.hidden = pin.disabled = !asksPin;
          pin.required = Boolean(asksPin);
          pin.value = "";
        }
        textBox.hidden = textBox.disabled = Boolean(asksPin);
        Array.from(textBox.labels || []).forEach(function (label) {
          label.hidden = Boolean(asksPin);
        });
        if (answer) answer.hidden = !method;
        if (yes) yes.hidden = Boolean(asksPin);
      },
      bind: function () {
        if (!answer) return;
        answer.querySelectorAll("button[data-say]").forEach(function (button) {
          button.addEventListener("click", function () {
            controls.show(null);
            textBox.value = button.dataset.say;
            form.requestSubmit();
          });
        });
      },
    };
    return controls;
  }

  /* The dry-run switch as this browser last left it (unless the add-on's option locks it on). */
  function rememberDryRun(form) {
    const KEY = "home-agent.chat.dry-run";
    const box = form.querySelector("input[name=dry_run]");
    if (!box || box.disabled) return;
    try {
      const kept = window.localStorage.getItem(KEY);
      if (kept !== null) box.checked = kept === "on";
      box.addEventListener("change", function () {
        window.localStorage.setItem(KEY, box.checked ? "on" : "off");
      });
    } catch (error) {
      // Storage refused (a private window): the switch starts on, as the page renders it.
    }
  }

  /* A reply asked for as a dry run says so at once, while it is still coming; the "done"
     event's meta line, which says whether the turn really was one, then takes its place.
     Returns what removes the early mark. */
  function markDryRun(form, item) {
    const box = form.querySelector("input[name=dry_run]");
    if (!box || !box.checked) return function () {};
    const meta = document.createElement("p");
    meta.className = "meta";
    const badge = document.createElement("span");
    badge.className = "badge dry-run";
    badge.textContent = "dry run";
    meta.appendChild(badge);
    item.appendChild(meta);
    return function () { meta.remove(); };
  }

  function enhanceChat(form) {
    const streamUrl = form.dataset.streamUrl;
    const log = document.getElementById("chat-log");
    const textBox = document.getElementById("chat-text");
    const conversation = form.elements.namedItem("conversation_id");
    const button = form.querySelector("button[type=submit]");
    if (!streamUrl || !log || !textBox || !conversation || !button || !window.fetch) return;
    const controls = answerControls(form, textBox);
    controls.bind();
    // A question still waiting when the page was (re)loaded is answered as a live one.
    if (form.dataset.awaiting) controls.show(form.dataset.awaiting);
    rememberDryRun(form);
    [textBox, document.getElementById("chat-pin")].forEach(function (field) {
      if (!field) return;
      field.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          form.requestSubmit();
        }
      });
    });

    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      const field = controls.field();
      const text = field.value.trim();
      if (!text || button.disabled) return;
      const body = new URLSearchParams(new FormData(form));
      log.hidden = false;
      // A PIN is never shown, not even for the moment before the reply names it masked: an
      // answer to a PIN question, or anything that may be a PIN (said late, out of habit). The
      // reply's "said" then shows what was stored: the mask, or the text if it was no PIN.
      const masked = controls.awaiting() === "pin" || pinLike(text);
      const shown = masked ? "\u2022\u2022\u2022\u2022" : text;
      const said = addMessage(log, "user", shown);
      field.value = "";
      const item = addMessage(log, "agent", "");
      const bubble = item.querySelector(".bubble");
      item.classList.add("pending");
      const unmarkDryRun = markDryRun(form, item);
      button.disabled = true;
      let confirm = null;
      let streamed = "";
      try {
        const response = await fetch(streamUrl, {
          method: "POST",
          body: body,
          credentials: "same-origin",
          headers: { Accept: "text/event-stream" },
        });
        if (!response.ok || !response.body) throw new Error(refusal(response));
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          buffer += decoder.decode(chunk.value, { stream: true });
          buffer = drainEvents(buffer, function (name, data) {
            if (name === "text") {
              streamed += data.text;
              bubble.textContent = streamed;
            } else if (name === "done") {
              bubble.textContent = data.reply;
              if (data.said) said.querySelector(".bubble").textContent = data.said;
              conversation.value = data.conversation_id;
              confirm = data.confirm || null;
              unmarkDryRun();
              const parts = [
                {
                  text: ANSWERED_BY[data.handled_by] || data.handled_by,
                  className: "badge " + data.handled_by,
                },
              ];
              if (data.dry_run) parts.push({ text: "dry run", className: "badge dry-run" });
              parts.push({ text: "Trace", href: data.trace_url });
              if (data.error) parts.push({ text: data.error, className: "error-text" });
              addMeta(item, parts);
            } else if (name === "failed") {
              throw new Error(data.message);
            }
          });
        }
      } catch (error) {
        item.classList.add("failed");
        bubble.textContent = error.message || "The reply could not be read.";
      } finally {
        item.classList.remove("pending");
        button.disabled = false;
        controls.show(confirm);
        controls.field().focus();
      }
    });
  }

  document.querySelectorAll("form[data-stream-url]").forEach(enhanceChat);

  /* The Safety form: the target field suggests what the chosen scope can name (the page
     renders one list per scope); the actions of the picked domain, each a button that adds it. */
  function enhanceSafety(form) {
    const scope = form.querySelector("#safety-scope");
    const target = form.querySelector("#safety-target");
    const actions = form.querySelector("#safety-actions");
    if (!scope || !target || !actions) return;
    scope.addEventListener("change", function () {
      const list = document.getElementById("safety-targets-" + scope.value);
      if (!list) return;
      target.setAttribute("list", list.id);
      target.placeholder = list.dataset.placeholder || "";
    });
    const groups = form.querySelectorAll(".action-choices");
    function show() {
      const domain = target.value.trim().toLowerCase().split(".")[0];
      groups.forEach(function (group) { group.hidden = group.dataset.domain !== domain; });
    }
    groups.forEach(function (group) {
      group.querySelectorAll("button[data-action]").forEach(function (button) {
        button.addEventListener("click", function () {
          const chosen = actions.value.split(",").map(function (part) { return part.trim(); })
            .filter(function (part) { return part; });
          if (chosen.indexOf(button.dataset.action) === -1) chosen.push(button.dataset.action);
          actions.value = chosen.join(", ");
        });
      });
    });
    target.addEventListener("input", show);
    target.addEventListener("change", show);
    show();
  }

  const safetyForm = document.getElementById("safety-form");
  if (safetyForm) enhanceSafety(safetyForm);

  function enhanceEditor(textarea) {
    if (!window.CodeMirror) return;
    const json = textarea.value.trimStart().startsWith("{");
    const editor = window.CodeMirror.fromTextArea(textarea, {
      mode: json ? { name: "javascript", json: true } : "yaml",
      lineNumbers: true,
      indentUnit: 2,
      tabSize: 2,
      lineWrapping: true,
      viewportMargin: Infinity,
      extraKeys: {
        Tab: function (cm) {
          cm.replaceSelection("  ");
        },
      },
    });
    const form = textarea.closest("#tool-form");
    if (form) enhanceToolFields(form, editor);
    const list = document.getElementById("problems");
    if (!list) return;
    let first = null;
    list.querySelectorAll("li[data-line]").forEach(function (item) {
      const line = parseInt(item.dataset.line, 10) - 1;
      if (isNaN(line) || line < 0 || line >= editor.lineCount()) return;
      const widget = document.createElement("div");
      widget.className = "cm-problem-widget";
      widget.textContent = item.textContent;
      editor.addLineWidget(line, widget, { coverGutter: false, noHScroll: true });
      editor.addLineClass(line, "background", "cm-problem-line");
      if (first === null || line < first) first = line;
    });
    if (first !== null) editor.scrollIntoView({ line: first, ch: 0 }, 80);
  }

  // The top-level keys of a tool definition, read and written in its text (YAML or JSON).
  const FIELD_KEYS = ["name", "description", "kind", "timeout", "enabled"];

  function isJson(text) {
    return text.trimStart().startsWith("{");
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function keyLine(key) {
    return new RegExp("^" + escapeRegExp(key) + "[ \\t]*:(.*)$", "m");
  }

  // A one-line YAML scalar's value: undefined when the key is absent or its value is not one
  // line (a block, a mapping), so a half-typed text never blanks a field.
  function readScalar(raw) {
    const text = raw.trim();
    if (text === "" || text[0] === "|" || text[0] === ">" || text[0] === "{" || text[0] === "[") {
      return undefined;
    }
    if (text[0] === "'") {
      let out = "";
      for (let i = 1; i < text.length; i++) {
        if (text[i] !== "'") out += text[i];
        else if (text[i + 1] === "'") out += text[i++];
        else return out;
      }
      return undefined;
    }
    if (text[0] === '"') {
      const match = /^"(?:[^"\\]|\\.)*"/.exec(text);
      if (!match) return undefined;
      try {
        return JSON.parse(match[0]);
      } catch (err) {
        return undefined;
      }
    }
    return text.replace(/\s+#.*$/, "");
  }

  function readKey(text, key) {
    if (isJson(text)) {
      try {
        const value = JSON.parse(text)[key];
        return value === null || typeof value === "object" ? undefined : String(value);
      } catch (err) {
        return undefined;
      }
    }
    const match = keyLine(key).exec(text);
    return match ? readScalar(match[1]) : undefined;
  }

  function yamlScalar(value) {
    if (typeof value !== "string") return String(value);
    const plain = /^[A-Za-z_][\w .,()/-]*$/.test(value) && !/\s$/.test(value) &&
      !/^(true|false|yes|no|on|off|null|~)$/i.test(value);
    return plain ? value : JSON.stringify(value);
  }

  // The text with the top-level key set: its line replaced (with the indented lines of a value
  // that was a block), or a line added at the end; every other line as typed.
  function writeKey(text, key, value) {
    if (isJson(text)) {
      try {
        const parsed = JSON.parse(text);
        parsed[key] = value;
        return JSON.stringify(parsed, null, 2) + "\n";
      } catch (err) {
        return text;
      }
    }
    const lines = text.split("\n");
    const pattern = keyLine(key);
    const at = lines.findIndex(function (line) {
      return pattern.test(line);
    });
    const written = key + ": " + yamlScalar(value);
    if (at < 0) {
      const body = text === "" || text.endsWith("\n") ? text : text + "\n";
      return body + written + "\n";
    }
    let end = at + 1;
    if (readScalar(pattern.exec(lines[at])[1]) === undefined) {
      while (end < lines.length && /^(\s|$)/.test(lines[end]) && end < lines.length - 1) end++;
    }
    lines.splice(at, end - at, written);
    return lines.join("\n");
  }

  // The text with the old kind's settings section replaced by the new kind's example (kept if
  // the text already has settings for the new kind), and kind set.
  function swapKind(text, kind, examples) {
    // Each example is {yaml: its section as text, settings: the same as data, for JSON}.
    const example = examples[kind];
    if (example === undefined) return writeKey(text, "kind", kind);
    const old = readKey(text, "kind");
    if (isJson(text)) {
      try {
        const parsed = JSON.parse(text);
        const settings = example.settings;
        if (kind in parsed) return writeKey(text, "kind", kind);
        const swapped = {};
        Object.keys(parsed).forEach(function (key) {
          if (key === old) swapped[kind] = settings;
          else swapped[key] = key === "kind" ? kind : parsed[key];
        });
        if (!(kind in swapped)) swapped[kind] = settings;
        return JSON.stringify(swapped, null, 2) + "\n";
      } catch (err) {
        return text;
      }
    }
    let edited = text;
    if (!keyLine(kind).test(text)) {
      const lines = text.split("\n");
      const start = old && old !== kind ? lines.findIndex(function (line) {
        return keyLine(old).test(line);
      }) : -1;
      const section = example.yaml.replace(/\n$/, "").split("\n");
      if (start < 0) {
        const body = text === "" || text.endsWith("\n") ? text : text + "\n";
        edited = body + section.join("\n") + "\n";
      } else {
        let end = start + 1;
        while (end < lines.length && /^(\s|#)/.test(lines[end])) end++;
        while (end > start + 1 && lines[end - 1].trim() === "") end--;
        lines.splice(start, end - start, ...section);
        edited = lines.join("\n");
      }
    }
    return writeKey(edited, "kind", kind);
  }

  function enhanceToolFields(form, editor) {
    const kind = form.querySelector("#field-kind");
    const enabled = form.querySelector("input[name=enabled][type=checkbox]");
    const inputs = {
      name: form.querySelector("#field-name"),
      description: form.querySelector("#field-description"),
      timeout: form.querySelector("#field-timeout"),
    };
    let examples = {};
    try {
      examples = JSON.parse(kind.dataset.examples || "{}");
    } catch (err) {
      examples = {};
    }
    let writing = false;

    function setText(text) {
      const current = editor.getValue();
      if (text === current) return;
      // Replace only what changed, so the editor keeps its undo history and scroll.
      let start = 0;
      while (start < text.length && start < current.length && text[start] === current[start]) {
        start++;
      }
      let end = 0;
      while (end < text.length - start && end < current.length - start &&
        text[text.length - 1 - end] === current[current.length - 1 - end]) end++;
      writing = true;
      editor.replaceRange(
        text.slice(start, text.length - end),
        editor.posFromIndex(start),
        editor.posFromIndex(current.length - end)
      );
      writing = false;
    }

    function showKind(value) {
      if (!Array.from(kind.options).some(function (option) { return option.value === value; })) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = value;
        kind.appendChild(option);
      }
      kind.value = value;
    }

    function follow() {
      const text = editor.getValue();
      Object.keys(inputs).forEach(function (key) {
        const value = readKey(text, key);
        if (value !== undefined && inputs[key] && inputs[key].value !== value) {
          inputs[key].value = value;
        }
      });
      const kindValue = readKey(text, "kind");
      if (kindValue !== undefined && kindValue !== kind.value) showKind(kindValue);
      const enabledValue = readKey(text, "enabled");
      if (enabled && enabledValue !== undefined) enabled.checked = enabledValue === "true";
    }

    editor.on("changes", function () {
      if (!writing) follow();
    });
    Object.keys(inputs).forEach(function (key) {
      const input = inputs[key];
      if (!input) return;
      input.addEventListener("input", function () {
        let value = input.value;
        if (key === "timeout" && /^\d+(\.\d+)?$/.test(value)) value = Number(value);
        setText(writeKey(editor.getValue(), key, value));
      });
    });
    kind.addEventListener("change", function () {
      setText(swapKind(editor.getValue(), kind.value, examples));
    });
    if (enabled) {
      enabled.addEventListener("change", function () {
        setText(writeKey(editor.getValue(), "enabled", enabled.checked));
      });
    }
  }

  function enhanceTaskFile(input) {
    const text = document.getElementById("eval-text");
    if (!text) return;
    input.addEventListener("change", function () {
      const file = input.files && input.files[0];
      if (!file) return;
      file.text().then(function (content) {
        text.value = content;
        const pasted = document.querySelector("input[name=source][value=text]");
        if (pasted) pasted.checked = true;
      });
    });
  }

  const taskFile = document.getElementById("eval-file");
  if (taskFile) enhanceTaskFile(taskFile);

  function followRun(section) {
    const url = section.dataset.progressUrl;
    const bar = document.getElementById("eval-progress");
    const status = document.getElementById("eval-status");
    const count = document.getElementById("eval-count");
    const rows = document.getElementById("eval-rows");
    const totals = document.getElementById("eval-totals");
    if (!url || !bar || !status || !count || !rows || !totals || !window.fetch) return;
    let shown = -1;
    async function poll() {
      let data;
      try {
        const response = await fetch(url, { credentials: "same-origin" });
        if (!response.ok) throw new Error(String(response.status));
        data = await response.json();
      } catch (error) {
        window.setTimeout(poll, 2000);
        return;
      }
      bar.value = data.percent;
      bar.textContent = data.percent + " %";
      count.textContent = data.done + "/" + data.total;
      status.textContent = data.status;
      status.className = "badge " + data.status;
      section.dataset.status = data.status;
      if (data.done !== shown || data.status !== "running") {
        shown = data.done;
        rows.innerHTML = data.rows;
        totals.innerHTML = data.totals;
      }
      if (data.status === "running") window.setTimeout(poll, 500);
    }
    poll();
  }

  function swapIn(fresh, selector, current, after) {
    const found = fresh.querySelector(selector);
    const node = found ? document.adoptNode(found) : null;
    if (current && node) current.replaceWith(node);
    else if (current) current.remove();
    else if (node && after) after.after(node);
    return node;
  }

  function postInPlace(form) {
    form.addEventListener("submit", function (event) {
      const item = form.closest("[data-tool]");
      const section = form.closest("section[id]");
      if (!item || !section) return;
      event.preventDefault();
      const action = form.getAttribute("action");
      form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
      fetch(form.action, {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        credentials: "same-origin",
      })
        .then(function (response) {
          if (!response.ok) throw new Error("answered " + response.status);
          return response.text();
        })
        .then(function (html) {
          const fresh = new DOMParser().parseFromString(html, "text/html");
          const selector = "#" + CSS.escape(section.id) + " [data-tool=\"" +
            CSS.escape(item.dataset.tool) + "\"]";
          const row = swapIn(fresh, selector, item, null);
          swapIn(fresh, ".notice[role=status]", document.querySelector(".notice[role=status]"),
            document.querySelector(".page-header"));
          if (!row) return;
          row.querySelectorAll("form[data-in-place]").forEach(postInPlace);
          const again = row.querySelector("form[action=\"" + CSS.escape(action) + "\"] button");
          if (again) again.focus();
        })
        .catch(function () {
          form.submit();
        });
    });
  }

  document.querySelectorAll("form[data-in-place]").forEach(postInPlace);

  const run = document.getElementById("eval-run");
  if (run && run.dataset.status === "running") followRun(run);

  document.addEventListener("DOMContentLoaded", function () {
    // After every deferred script, CodeMirror's included.
    document.querySelectorAll("textarea.code-editor").forEach(enhanceEditor);
  });
})();
