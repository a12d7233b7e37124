// starhall web: the lobby (/) and a table, live or in replay (/table/ID?at=SEQ). Everything
// shown comes over this page's WebSocket from the starhall web process, itself a spectator:
// the page never holds more than a spectator may see.
"use strict";

const main = document.getElementById("main");
const where = document.getElementById("where");
const connection = document.getElementById("connection");
const {esc} = Cards;
const TITLES = {stars: "Stars", hearts: "Stardeck Hearts", star_patience: "The Star",
  what_else: "A card game – what else?", stars_and_bars: "Stars and Bars"};
const STEP_SECONDS = 0.8;

// The server behind starhall web stopped answering (or answers again): say so over the page.
function serverNotice(message) {
  if (message.type === "hello") { serverNotice({type: "server", connected: message.connected !== false}); return false; }
  if (message.type !== "server") return false;
  connection.textContent = message.connected ? "" : "The game server is not answering: waiting for it…";
  return true;
}

function socket(path, onMessage) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
  let ws;
  const api = {send: (message) => ws && ws.readyState === 1 && ws.send(JSON.stringify(message))};
  function open() {
    ws = new WebSocket(url);
    ws.onopen = () => { connection.textContent = ""; document.body.dataset.connected = "yes"; };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (!serverNotice(message)) onMessage(message);
    };
    ws.onclose = () => {
      document.body.dataset.connected = "no";
      connection.textContent = "Connection lost: trying again…";
      setTimeout(open, 1000);
    };
  }
  open();
  return api;
}

// --- the lobby ---------------------------------------------------------------------------

function lobby() {
  document.title = "Starhall – tables";
  where.textContent = "Tables";
  main.innerHTML = `<section class="lobby"><p class="caption">Waiting for the server…</p></section>`;
  socket("/ws/lobby", (message) => {
    if (message.type === "hello") where.textContent = `Tables of ${message.server.replace("tcp://", "")}`;
    if (message.type === "lobby") drawLobby(message.tables, message.names || {});
  });
}

function drawLobby(tables, labels) {
  const byGame = new Map();
  for (const info of tables) {
    if (!byGame.has(info.game)) byGame.set(info.game, []);
    byGame.get(info.game).push(info);
  }
  let html = "";
  if (!tables.length) html = `<p class="caption">No tables yet: start one with <code>starhall join</code>.</p>`;
  const order = ["playing", "waiting", "over", "broken"];
  for (const [game, infos] of byGame) {
    infos.sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
    html += `<h2>${esc(infos[0].title || TITLES[game] || game)}</h2><ul class="tables">`;
    for (const info of infos) {
      const names = (info.seats || []).map((seat) => {
        const turn = (info.to_act || []).includes(seat.seat) && info.status === "playing";
        const name = seat.state === "free" ? "free seat" : (labels[info.id] || [])[seat.seat] || seat.name || `Seat ${seat.seat}`;
        const level = seat.state === "bot" && !seat.level ? " (bot)" : "";
        const score = (info.scores || [])[seat.seat];
        const won = (info.winners || []).includes(seat.seat) ? " ★" : "";
        return `<li class="${turn ? "turn" : ""}">${esc(name)}${esc(level)}${score !== undefined ? ` <b>${score}</b>` : ""}${won}</li>`;
      }).join("");
      const action = info.status === "over" ? "Replay" : info.status === "playing" ? "Watch" : "Look";
      const status = esc(info.status);
      html += `<li class="table ${status}" data-table="${esc(info.id)}" data-status="${status}">` +
        `<a href="/table/${encodeURIComponent(info.id)}"><span class="id">#${esc(info.id)}</span>` +
        `<span class="name">${esc(info.name || "")}</span><span class="status">${status}</span>` +
        `<ul class="players">${names}</ul><span class="seq">${Number(info.seq)} events · ${Number(info.spectators)} watching</span>` +
        `<span class="go">${action} ›</span></a></li>`;
    }
    html += `</ul>`;
  }
  main.innerHTML = `<section class="lobby">${html}</section>`;
}

// --- a table -------------------------------------------------------------------------------

function table(id) {
  const params = new URLSearchParams(location.search);
  const t = {id, game: "", names: [], colours: ["#f0e442"], faces: {}, info: {}, view: null,
    view0: null, steps: [], hands: [], live: null, mode: params.has("at") ? "replay" : "live",
    at: params.has("at") ? Number(params.get("at")) : 0, playing: false, shown: new Set(), error: null};
  document.title = `Starhall – table ${id}`;
  where.innerHTML = `<a href="/">Tables</a> › Table ${esc(id)}`;
  main.innerHTML = `<section class="table-page" data-mode="${t.mode}"><p class="caption">Waiting for the server…</p></section>`;
  const link = socket(`/ws/table/${encodeURIComponent(id)}`, (message) => receive(t, link, message));
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
    const keys = {ArrowRight: () => step(t, 1), ArrowLeft: () => step(t, -1), Home: () => seek(t, 0),
      End: () => seek(t, lastSeq(t)), PageDown: () => jumpHand(t, 1), PageUp: () => jumpHand(t, -1)};
    if (keys[event.key]) { event.preventDefault(); enterReplay(t); keys[event.key](); }
  });
  t.link = link;
  setInterval(() => { if (t.playing) { if (t.at >= lastSeq(t)) t.playing = false; else step(t, 1); } }, STEP_SECONDS * 1000);
}

function receive(t, link, message) {
  if (message.type === "hello") { t.colours = message.seat_colours; return; }
  if (message.type === "error") { t.error = message.reason; render(t); return; }
  Object.assign(t.faces, message.faces || {});
  if (message.names) t.names = message.names;
  if (message.info && Object.keys(message.info).length) t.info = message.info;
  if (message.type === "history") {
    t.game = message.game;
    t.view0 = message.view;
    const later = t.steps.filter((s) => s.seq > lastOf(message.steps));
    t.steps = message.steps.concat(later);
    t.hands = message.hands;
    if (t.mode === "live" && t.info.status === "over" && !t.live) { t.mode = "replay"; t.at = 0; }
    if (t.mode === "replay") t.at = Math.min(t.at, lastSeq(t));
    render(t);
  } else if (message.type === "state") {
    t.game = message.game;
    t.live = {seq: message.seq, view: message.view};
    if (t.info.status === "over" && t.mode === "live" && t.view0 === null) { t.mode = "replay"; t.at = 0; }
    render(t);
  } else if (message.type === "update") {
    for (const event of message.events) {
      if (t.steps.length && event.seq <= lastOf(t.steps)) continue;
      t.steps.push({seq: event.seq, event, view: message.view, line: event.line, live: true});
      if (["deal", "shuffle", "shuffled"].includes(event.type)) t.hands.push(event.seq);
    }
    t.live = {seq: message.seq, view: message.view};
    render(t, t.mode === "live");
  } else if (message.type === "info") {
    render(t);
  }
}

function lastOf(steps) { return steps.length ? steps[steps.length - 1].seq : 0; }
function lastSeq(t) { return Math.max(lastOf(t.steps), t.live ? t.live.seq : 0); }

function viewAt(t, seq) {
  let view = t.view0;
  for (const s of t.steps) { if (s.seq > seq) break; view = s.view; }
  return view;
}

function enterReplay(t) {
  if (t.mode === "replay") return;
  t.mode = "replay";
  t.at = lastSeq(t);
  t.link.send({type: "history"});  // the exact view after every event, live ones too
}

function seek(t, seq, animate) {
  t.at = Math.max(0, Math.min(seq, lastSeq(t)));
  const url = new URL(location.href);
  url.searchParams.set("at", String(t.at));
  history.replaceState(null, "", url);
  render(t, animate);
}

function step(t, by) { seek(t, t.at + by, by === 1); }

function jumpHand(t, by) {
  const hands = t.hands;
  const target = by > 0 ? hands.find((s) => s > t.at) : [...hands].reverse().find((s) => s < t.at);
  seek(t, target === undefined ? (by > 0 ? lastSeq(t) : 0) : target);
}

function goLive(t) {
  t.mode = "live";
  t.playing = false;
  history.replaceState(null, "", location.pathname);
  render(t);
}

function render(t, animate) {
  const page = main.querySelector(".table-page");
  if (t.error) { page.innerHTML = `<p class="error">${esc(t.error)}</p>`; return; }
  const live = t.mode === "live";
  const view = live ? (t.live ? t.live.view : viewAt(t, lastSeq(t))) : viewAt(t, t.at);
  if (!view) return;
  const seq = live ? (t.live ? t.live.seq : lastSeq(t)) : t.at;
  t.view = view;
  page.dataset.mode = t.mode;
  page.dataset.game = t.game || view.game;
  page.dataset.seq = String(seq);
  t.game = t.game || view.game;
  const title = t.info.title || TITLES[t.game] || t.game;
  document.title = `${title} – table ${t.id}`;
  const status = t.info.status || "";
  const turn = (view.to_act || []).map((s) => Games.seatName(t, s)).join(", ");
  const header = `<div class="table-head"><h1>${esc(title)} <span class="dim">#${esc(t.id)}</span></h1>` +
    `<span class="status ${esc(status)}">${live ? (status === "over" ? "finished" : "live") : "replay"}</span>` +
    (turn && view.phase !== "over" ? `<span class="turn-line">To move: ${turn}</span>` : "") +
    (view.phase === "over" ? `<span class="turn-line">Game over${winners(t)}</span>` : "") + `</div>`;
  const lines = t.steps.filter((s) => s.seq <= seq && s.line);
  const log = `<ol class="log" aria-label="Moves">${lines.slice(-200).map((s) =>
    `<li value="${s.seq}" data-seq="${s.seq}"${s.seq === seq ? ' class="now"' : ""}>${s.line.split("\n").map(esc).join("<br>")}</li>`).join("")}</ol>`;
  const controls = replayControls(t, live, seq);
  page.innerHTML = header + `<div class="table-body"><div class="table-area">${Games.draw(t)}</div>` +
    `<aside class="side">${controls}<h2>Moves</h2>${log}</aside></div>`;
  const ol = page.querySelector(".log");
  ol.scrollTop = ol.scrollHeight;
  animateNew(t, page, animate);
  wire(t, page);
}

function winners(t) {
  const list = t.info.winners || [];
  return list.length && t.info.status === "over" ? `: ${list.map((s) => Games.seatName(t, s)).join(", ")} won` : "";
}

function replayControls(t, live, seq) {
  const last = lastSeq(t);
  const liveButton = t.info.status !== "over" ? `<button data-do="live" ${live ? "disabled" : ""}>● Live</button>` : "";
  return `<div class="controls">` +
    `<div class="buttons"><button data-do="first" title="The first event (Home)">|◀</button>` +
    `<button data-do="prev-hand" title="The hand before (Page Up)">◀◀</button>` +
    `<button data-do="back" title="One event back (←)">◀</button>` +
    `<button data-do="play" title="Play on">${t.playing ? "Pause" : "Play"}</button>` +
    `<button data-do="forward" title="One event on (→)">▶</button>` +
    `<button data-do="next-hand" title="The next hand (Page Down)">▶▶</button>` +
    `<button data-do="last" title="The last event (End)">▶|</button>${liveButton}</div>` +
    `<input type="range" class="slider" min="0" max="${last}" value="${seq}" aria-label="Event">` +
    handChoice(t, seq) +
    `<span class="counter">event <b class="at">${seq}</b> of ${last}</span>` +
    (t.mode === "replay" ? ` <a class="moment" href="${location.pathname}?at=${seq}">link to this moment</a>` : "") + `</div>`;
}

// Every hand (deal, round) by number, to jump to; the one shown is selected.
function handChoice(t, seq) {
  if (!t.hands.length) return "";
  const current = t.hands.filter((s) => s <= seq).length;
  const options = t.hands.map((start, i) =>
    `<option value="${start}"${i + 1 === current ? " selected" : ""}>Hand ${i + 1} (event ${start})</option>`).join("");
  return `<select class="hands" aria-label="Jump to a hand">${current ? "" : "<option selected>Before the first hand</option>"}${options}</select>`;
}

function wire(t, page) {
  page.querySelectorAll("button[data-do]").forEach((button) => button.addEventListener("click", () => {
    const action = button.dataset.do;
    if (action === "live") return goLive(t);
    enterReplay(t);
    if (action === "first") seek(t, 0);
    else if (action === "last") seek(t, lastSeq(t));
    else if (action === "back") step(t, -1);
    else if (action === "forward") step(t, 1);
    else if (action === "prev-hand") jumpHand(t, -1);
    else if (action === "next-hand") jumpHand(t, 1);
    else if (action === "play") { t.playing = !t.playing; if (t.at >= lastSeq(t)) seek(t, 0); else render(t); }
  }));
  const hands = page.querySelector("select.hands");
  if (hands) hands.addEventListener("change", () => { enterReplay(t); seek(t, Number(hands.value)); });
  const slider = page.querySelector(".slider");
  slider.addEventListener("input", () => { enterReplay(t); seek(t, Number(slider.value)); });
}

// A card that was not on the table before arrives with a short flight (CSS .arrive).
function animateNew(t, page, animate) {
  const cards = page.querySelectorAll(".table-area [data-code]");
  const now = new Set();
  cards.forEach((el) => {
    const code = el.dataset.code;
    now.add(code);
    if (animate && !t.shown.has(code) && !el.closest(".open-hand")) el.classList.add("arrive");
  });
  t.shown = now;
}

const path = location.pathname;
if (path.startsWith("/table/")) table(decodeURIComponent(path.slice("/table/".length)));
else lobby();
