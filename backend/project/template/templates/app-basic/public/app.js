// Asks the server for /api/hello every few seconds and shows the answer.
const status = document.getElementById("status");
const dot = document.getElementById("dot");

async function refresh() {
  try {
    const res = await fetch("/api/hello", { cache: "no-store" });
    const data = await res.json();
    const time = new Date(data.time).toLocaleTimeString();
    status.textContent = `${data.message} at ${time} (Node ${data.node}, up ${data.uptimeSeconds}s)`;
    dot.className = "dot ok";
  } catch {
    status.textContent = "The server is not answering. Is it still running?";
    dot.className = "dot down";
  }
}

refresh();
setInterval(refresh, 5000);
