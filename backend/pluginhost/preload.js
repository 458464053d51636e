// meith's plugin bridge preload. meith evaluates it through CDP, before the
// page's own scripts, in every document of a tab it opened for a plugin;
// the config below is written in per tab. It defines window.meithPlugin in
// the main frame while the page is inside the plugin's scope, with only the
// namespaces the user approved. meith answers only calls from the main
// frame's page world of a page in scope, whatever this script does.
(() => {
  "use strict";
  const config = /*CONFIG*/ null;
  const binding = globalThis[config.binding];
  try {
    delete globalThis[config.binding];
  } catch (_) {
    // A frame where it cannot be deleted keeps it; meith ignores its calls.
  }
  if (typeof binding !== "function" || window.top !== window) return;
  if (location.origin !== config.origin || !location.pathname.startsWith(config.prefix)) return;

  const post = binding;
  const stringify = JSON.stringify;
  const pending = new Map();
  let seq = 0;
  let revoked = "";

  const bridgeError = (code, message) => {
    const e = new Error(message);
    e.code = code;
    return e;
  };

  // start sends one request; the promise settles with meith's answer.
  const start = (op, args, onEvent) => {
    const id = ++seq;
    const promise = new Promise((resolve, reject) => {
      if (revoked) {
        reject(bridgeError("REVOKED", revoked));
        return;
      }
      pending.set(id, { resolve, reject, onEvent });
      try {
        post(stringify({ id, op, args: args === undefined ? {} : args }));
      } catch (e) {
        pending.delete(id);
        reject(e);
      }
    });
    const cancel = () => {
      if (pending.has(id)) {
        try {
          post(stringify({ id, op: "cancel" }));
        } catch (_) {
          // The bridge is gone: nothing to cancel.
        }
      }
    };
    return { promise, cancel };
  };

  const deliver = (msg) => {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "revoked") {
      revoked = String(msg.reason || "the plugin bridge was revoked");
      for (const p of pending.values()) p.reject(bridgeError("REVOKED", revoked));
      pending.clear();
      return;
    }
    const p = pending.get(msg.id);
    if (!p) return;
    if (msg.type === "event") {
      if (typeof p.onEvent === "function") {
        try {
          p.onEvent(msg.event);
        } catch (e) {
          setTimeout(() => {
            throw e;
          });
        }
      }
      return;
    }
    pending.delete(msg.id);
    if (msg.type === "result") p.resolve(msg.value);
    else p.reject(bridgeError(msg.code || "TOOL_FAILED", msg.message || "the call failed"));
  };
  Object.defineProperty(globalThis, config.deliver, { value: deliver });

  const freeze = (v) => {
    if (v && typeof v === "object") {
      for (const k of Object.keys(v)) freeze(v[k]);
      Object.freeze(v);
    }
    return v;
  };
  const approved = (scope) => config.scopes.includes(scope);
  const watch = (signal, cancel) => {
    if (!signal) return;
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
  };

  const api = { identity: freeze(config.identity) };
  if (approved("tools")) {
    api.tools = Object.freeze({
      // list resolves to the tool descriptors (name, description,
      // capabilities, inputSchema).
      list: () => start("tools.list").promise,
      // call resolves to the tool's result envelope ({ok, content} or
      // {ok: false, error: {code, message}}), as any caller gets it;
      // options: onEvent(event), signal (an AbortSignal), timeoutMs.
      call: (name, args, options) => {
        const o = options || {};
        const { promise, cancel } = start("tools.call", { name, args: args === undefined ? {} : args, timeoutMs: o.timeoutMs }, o.onEvent);
        watch(o.signal, cancel);
        promise.cancel = cancel;
        return promise;
      },
    });
  }
  if (approved("storage")) {
    api.storage = Object.freeze({
      getBrowserTabs: () => start("storage.getBrowserTabs").promise,
      getWorkspaceTabs: () => start("storage.getWorkspaceTabs").promise,
    });
  }
  if (approved("cdp")) {
    api.cdp = Object.freeze({
      send: (tabId, method, params) => start("cdp.send", { tabId, method, params }).promise,
    });
  }
  if (approved("ai")) {
    api.ai = Object.freeze({
      // streamText({prompt, systemPrompt, maxChars, timeoutMs, onText,
      // onStart}) resolves to {text}; onStart gets {cancel}.
      streamText: (options) => {
        const o = options || {};
        let streamed = false;
        const onText = typeof o.onText === "function" ? o.onText : () => {};
        const { promise, cancel } = start(
          "ai.streamText",
          { prompt: o.prompt, systemPrompt: o.systemPrompt, maxChars: o.maxChars, timeoutMs: o.timeoutMs },
          (ev) => {
            if (ev && ev.kind === "partial_text" && typeof ev.text === "string") {
              streamed = true;
              onText(ev.text);
            }
          },
        );
        watch(o.signal, cancel);
        if (typeof o.onStart === "function") o.onStart({ cancel });
        return promise.then((v) => {
          const text = v && typeof v.text === "string" ? v.text : "";
          if (!streamed && text) onText(text);
          return { text };
        });
      },
    });
  }
  Object.defineProperty(globalThis, "meithPlugin", { value: Object.freeze(api), enumerable: true });
})();
