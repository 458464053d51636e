// The plugin bridge is `window.meithPlugin`. meith exposes it only in a plugin
// tab of an installed and enabled plugin, and each namespace (tools, storage,
// cdp, ai) only when the user approved it for this plugin.
const bridge = window.meithPlugin;
const identity = document.getElementById("identity");
const ping = document.getElementById("ping");
const result = document.getElementById("result");

if (!bridge) {
  identity.textContent =
    "No plugin bridge here: open this page as a plugin tab in meith (install the folder, enable it, then open it).";
} else {
  identity.textContent = JSON.stringify(bridge.identity, null, 2);
  if (bridge.tools) {
    ping.disabled = false;
    result.textContent = "Press the button to call a tool through the bridge.";
    ping.addEventListener("click", async () => {
      try {
        result.textContent = JSON.stringify(await bridge.tools.call("app_ping", {}), null, 2);
      } catch (err) {
        result.textContent = `The call failed: ${err?.message ?? err}`;
      }
    });
  }
}
