// The live-map benchmark's peer: the broadcaster many teams would write with Node's `ws`
// package, serving the same viewers the same frames on the same change schedule as the server
// (scripts/bench-live.sh runs live-bench against both, one after the other).
//
// What it answers, in the server's own shapes, for the one showtime it knows:
//   GET    /showtimes                  that showtime, as the server lists it
//   GET    /showtimes/{id}/seats       the seat map, with each change applied
//   GET    /showtimes/{id}/live        WebSocket: the snapshot, then each change as it happens
//   POST   /showtimes/{id}/holds       {"seats":[code]}: the seat HELD, a seatsHeld frame to all
//   DELETE /holds/{holdId}             the seat AVAILABLE again, a seatsReleased frame to all
// Every change is broadcast the way the `ws` documentation shows: `send` to every open client.
//
// Usage: node live-peer.mjs <port> <seat map JSON file, as GET /showtimes/{id}/seats answers>
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { WebSocketServer, WebSocket } from "ws";

const [port, mapFile] = process.argv.slice(2);
const map = JSON.parse(readFileSync(mapFile, "utf8"));
const showtimeId = map.showtimeId;
const seats = new Map(map.seats.map((s) => [s.code, s]));
const holds = new Map();
let nextHold = 1;

const snapshot = () =>
  JSON.stringify({
    type: "snapshot",
    showtimeId,
    seats: [...seats.values()].map(({ code, status, version }) => ({ code, status, version })),
  });

const wss = new WebSocketServer({ noServer: true, maxPayload: 256 });

function broadcast(type, code) {
  const seat = seats.get(code);
  const frame = JSON.stringify({
    type,
    showtimeId,
    seats: [{ code, status: seat.status, version: seat.version }],
  });
  for (const client of wss.clients) {
    if (client.readyState === WebSocket.OPEN) client.send(frame);
  }
}

function change(code, status) {
  const seat = seats.get(code);
  seat.status = status;
  seat.version += 1;
}

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  const path = req.url.split("?")[0];
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    if (req.method === "GET" && path === "/showtimes") {
      return json(res, 200, [{ id: showtimeId, seatsTotal: seats.size, salesOpen: true }]);
    }
    if (req.method === "GET" && path === `/showtimes/${showtimeId}/seats`) {
      return json(res, 200, { ...map, seats: [...seats.values()] });
    }
    if (req.method === "POST" && path === `/showtimes/${showtimeId}/holds`) {
      const codes = JSON.parse(body || "{}").seats ?? [];
      const code = codes[0];
      if (codes.length !== 1 || seats.get(code)?.status !== "AVAILABLE") {
        return json(res, 409, { error: "not available", code: "SEATS_UNAVAILABLE" });
      }
      change(code, "HELD");
      const holdId = `peer-${nextHold++}`;
      holds.set(holdId, code);
      json(res, 201, { holdId, expiresAt: new Date(Date.now() + 600_000).toISOString() });
      return broadcast("seatsHeld", code);
    }
    const release = req.method === "DELETE" && path.match(/^\/holds\/([^/]+)$/);
    if (release && holds.has(release[1])) {
      const code = holds.get(release[1]);
      holds.delete(release[1]);
      change(code, "AVAILABLE");
      res.writeHead(204).end();
      return broadcast("seatsReleased", code);
    }
    json(res, 404, { error: "no such resource", code: "NOT_FOUND" });
  });
});

server.on("upgrade", (req, socket, head) => {
  if (req.url.split("?")[0] !== `/showtimes/${showtimeId}/live`) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => ws.send(snapshot()));
});

server.listen(Number(port), "127.0.0.1", () => console.log(`live peer on 127.0.0.1:${port}`));
