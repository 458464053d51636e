// A small web server with no dependencies: `npm run dev` (or `node server.mjs`).
//
// It serves the files in ./public and one JSON endpoint, /api/hello. It listens
// on 127.0.0.1 at the port in PORT, or at a free port when PORT is unset or 0,
// and prints the address it got as `Local: http://127.0.0.1:<port>/`.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const publicDir = fileURLToPath(new URL("./public/", import.meta.url));
const host = "127.0.0.1";
const wanted = Number.parseInt(process.env.PORT ?? "0", 10);
const port = Number.isInteger(wanted) && wanted >= 0 && wanted < 65536 ? wanted : 0;
const started = Date.now();

const types = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

function send(res, status, type, body) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, types[".txt"], "Internal server error\n");
    else res.destroy();
  });
});

async function handle(req, res) {
  let url;
  try {
    // The path alone: a request target like "//x" is not a host here.
    url = new URL(`http://localhost${req.url?.startsWith("/") ? req.url : "/"}`);
  } catch {
    return send(res, 400, types[".txt"], "Bad request\n");
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    return send(res, 405, types[".txt"], "Method not allowed\n");
  }
  if (url.pathname === "/api/hello") {
    const body = JSON.stringify({
      message: "Hello from server.mjs",
      time: new Date().toISOString(),
      uptimeSeconds: Math.round((Date.now() - started) / 1000),
      node: process.version,
    });
    return send(res, 200, types[".json"], body);
  }
  let path;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return send(res, 400, types[".txt"], "Bad request\n");
  }
  if (path.endsWith("/")) path += "index.html";
  const file = normalize(join(publicDir, path));
  if (!file.startsWith(publicDir) || path.includes("\0")) {
    return send(res, 404, types[".txt"], "Not found\n");
  }
  try {
    const body = await readFile(file);
    const type = types[extname(file).toLowerCase()] ?? "application/octet-stream";
    send(res, 200, type, req.method === "HEAD" ? undefined : body);
  } catch {
    send(res, 404, types[".txt"], "Not found\n");
  }
}

server.on("error", (err) => {
  if (err.code === "EADDRINUSE") {
    console.error(`Port ${port} is in use: set PORT to another port, or to 0 for a free one.`);
  } else {
    console.error(err.message);
  }
  process.exit(1);
});

server.listen(port, host, () => {
  console.log(`Local: http://${host}:${server.address().port}/`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections?.();
  });
}
