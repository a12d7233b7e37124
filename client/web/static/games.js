// Each game's table, drawn from a spectator's view (the map docs/games/GAME.md describes):
// a function per game returning the table's HTML. Faces come with the view; a card whose face
// is not there is drawn face down.
"use strict";

const Games = (() => {
  const {element, backs, esc, card} = Cards;

  function seatName(t, seat) { return esc(t.names[seat] || `Seat ${seat}`); }
  function colourOf(t, seat) { return t.colours[seat % t.colours.length]; }
  function turnOf(view) { return new Set(view.to_act || []); }
  function face(t, code, classes) { return element(code, t.faces[code], classes); }

  function seatBox(t, seat, body, extra) {
    const turn = turnOf(t.view).has(seat) ? " turn" : "";
    return `<div class="seat${turn}${extra || ""}" data-seat="${seat}" style="--seat:${colourOf(t, seat)}">` +
      `<div class="seat-name"><span class="dot"></span>${seatName(t, seat)}${turn ? ' <span class="to-move">to move</span>' : ""}</div>${body}</div>`;
  }

  function played(t, plays, classes) {
    return plays.map(([seat, code]) => `<figure class="play" style="--seat:${colourOf(t, seat)}">` +
      `${face(t, code, classes)}<figcaption>${seatName(t, seat)}</figcaption></figure>`).join("");
  }

  // --- the trick games: Stars, Stardeck Hearts ------------------------------------------

  const SUIT_WORDS = {k: "Skulls", s: "Shields", w: "Wands", l: "Leaves", "*": "Stars", H: "Hearts", S: "Spades", C: "Clubs", D: "Diamonds"};

  function tricks(t) {
    const v = t.view, players = v.players;
    let seats = "";
    for (let seat = 0; seat < players; seat++) {
      const lines = [`<span class="stat">total <b>${(v.totals || [])[seat] ?? 0}</b></span>`];
      if (v.hand_scores) lines.push(`<span class="stat">this hand ${v.hand_scores[seat] ?? 0}</span>`);
      if (v.game === "stars") {
        const bid = (v.bids || []).filter(([who]) => who === seat).map(([, amount]) => amount).pop();
        if (v.declarer === seat) lines.push(`<span class="badge">declarer${v.contract ? " " + v.contract.bid : ""}</span>`);
        else if (v.phase === "bidding" && bid !== undefined) lines.push(`<span class="stat">${bid === null ? "passed" : "bid " + bid}</span>`);
        if ((v.star_piles || [])[seat] && v.star_piles[seat].length) lines.push(`<span class="badge">★ ${v.star_piles[seat].length / 4 | 0}</span>`);
      } else if (v.taken_points) {
        lines.push(`<span class="stat">taken ${v.taken_points[seat]}</span>`);
      }
      if (v.dealer === seat) lines.push(`<span class="badge">dealer</span>`);
      seats += seatBox(t, seat, `<div class="hand">${backs((v.hand_sizes || [])[seat] || 0, 16)}</div><div class="stats">${lines.join(" ")}</div>`);
    }
    const trick = v.trick || [];
    let centre;
    if (trick.length) centre = `<div class="trick">${played(t, trick, "big")}</div>`;
    else if ((v.last_trick || []).length) {
      centre = `<div class="trick last">${played(t, v.last_trick, "big")}</div>` +
        `<p class="caption">Last trick${v.last_winner !== null && v.last_winner !== undefined ? ", taken by " + seatName(t, v.last_winner) : ""}</p>`;
    } else centre = `<div class="trick empty"><p class="caption">${phaseWords(v)}</p></div>`;
    const facts = [`Hand ${Number(v.hand_number ?? 0)}`];
    if (v.trump) facts.push(`Trump: ${SUIT_WORDS[v.trump] || esc(v.trump)}`);
    if (v.contract) facts.push(`Contract: ${seatName(t, v.contract.declarer)} ${v.contract.bid}`);
    else if (v.high_bid) facts.push(`High bid ${v.high_bid}`);
    if (v.game === "hearts" && v.hearts_broken) facts.push("Hearts broken");
    if (v.widow_count) facts.push(`Widow: ${v.widow_count} cards`);
    if (v.target) facts.push(`Plays to ${v.target}`);
    return `<div class="board tricks-board"><div class="seats n${players}">${seats}</div>` +
      `<div class="centre"><div class="facts">${facts.map((f) => `<span>${f}</span>`).join("")}</div>${centre}</div>` +
      scoreSheet(t) + `</div>`;
  }

  function scoreSheet(t) {
    const sheet = t.view.score_sheet || [];
    if (!sheet.length) return "";
    const head = t.names.map((_, seat) => `<th style="--seat:${colourOf(t, seat)}">${seatName(t, seat)}</th>`).join("");
    const rows = sheet.slice(-6).map((row, i) => `<tr><td>${sheet.length - Math.min(sheet.length, 6) + i + 1}</td>` +
      (Array.isArray(row) ? row : row.scores || []).map((n) => `<td>${n}</td>`).join("") + `</tr>`).join("");
    return `<details class="sheet"><summary>Score sheet</summary><table><tr><th>Hand</th>${head}</tr>${rows}</table></details>`;
  }

  function phaseWords(v) {
    return {deal: "Dealing…", bidding: "Bidding", bury: "The declarer buries three cards",
      pass: "Passing cards", play: "Play", over: "The game is over"}[v.phase] || (v.phase || "");
  }

  // --- The Star (patience) -------------------------------------------------------------

  const DIRECTIONS = {N: [0, -1], NE: [0.7071, -0.7071], E: [1, 0], SE: [0.7071, 0.7071],
    S: [0, 1], SW: [-0.7071, 0.7071], W: [-1, 0], NW: [-0.7071, -0.7071]};

  function starPatience(t) {
    const v = t.view, W = 100, H = 140, size = 600, mid = size / 2, cw = 54, ch = 75.6;
    let svg = `<svg class="star-board" viewBox="0 0 ${size} ${size}" role="img" aria-label="The Star">`;
    svg += `<polygon class="star-outline" points="${Cards.starPoints(mid, mid, mid * 0.98, 8, 0.55, -Math.PI / 2)}"/>`;
    (v.lines || []).forEach((line, i) => {
      const [dx, dy] = DIRECTIONS[line] || [0, 0];
      [["inner", 118], ["outer", 226]].forEach(([ring, radius]) => {
        const code = (v[ring] || [])[i];
        const x = mid + dx * radius - cw / 2, y = mid + dy * radius - ch / 2;
        svg += code ? `<g class="slot" data-code="${esc(code)}">${card(code, t.faces[code], x, y, cw, ch)}</g>`
          : `<rect class="empty-slot" x="${x}" y="${y}" width="${cw}" height="${ch}" rx="5"/>`;
      });
      svg += `<text class="line-label" x="${mid + dx * 286}" y="${mid + dy * 286 + 6}" text-anchor="middle">${esc(line)}</text>`;
    });
    if (v.turned) svg += `<g class="slot turned" data-code="${esc(v.turned)}">${card(v.turned, t.faces[v.turned], mid - cw * 0.7, mid - ch * 0.7, cw * 1.4, ch * 1.4)}</g>`;
    svg += `</svg>`;
    void W; void H;
    const result = v.result ? `<span class="badge">${v.result === "won" ? "Won!" : esc(v.result)}</span>` : "";
    const facts = [`Deal ${v.deal_number ?? ""}`, `Stock: ${v.stock_count ?? 0}`, `Pairs removed: ${(v.pairs || []).length}`,
      `Moves: ${v.moves ?? 0}`, `Undos: ${v.undos ?? 0}`];
    const pairs = (v.pairs || []).slice(-4).map((pair) => `<span class="pair">${pair.map((c) => face(t, c, "small")).join("")}</span>`).join("");
    return `<div class="board star-patience"><div class="facts">${facts.map((f) => `<span>${f}</span>`).join("")}${result}</div>` +
      `<div class="star-wrap">${svg}</div><div class="pairs"><span class="caption">Last pairs removed</span>${pairs}</div></div>`;
  }

  // --- A card game – what else? ---------------------------------------------------------

  const PILE_SHOWN = 6;  // the pile's last cards: the top one and what led to it

  function whatElse(t) {
    const v = t.view;
    let seats = "";
    for (let seat = 0; seat < v.players; seat++) {
      const tokens = (v.tokens || [])[seat] || 0;
      const stars = `<span class="tokens" title="${tokens} star tokens">${"★".repeat(tokens)}<span class="dim">${"☆".repeat(Math.max(0, (v.target || 0) - tokens))}</span></span>`;
      const status = (v.status || [])[seat] || "";
      seats += seatBox(t, seat, `<div class="hand">${backs((v.hand_counts || [])[seat] || 0, 12)}</div>` +
        `<div class="stats">${stars} <span class="stat">${esc(status)}</span>${v.opener === seat ? ' <span class="badge">opened</span>' : ""}</div>`,
        status === "passed" ? " passed" : "");
    }
    const pile = v.pile || [];
    const earlier = pile.length > PILE_SHOWN ? `<span class="earlier">+${pile.length - PILE_SHOWN} earlier</span>` : "";
    const shownPile = pile.length ? `<div class="pile">${earlier}${played(t, pile.slice(-PILE_SHOWN), "big")}</div>`
      : `<p class="caption">${v.last_round ? `Round ${v.last_round.round}: ${seatName(t, v.last_round.winner)} won a star` : "The pile is empty"}</p>`;
    const facts = [`Round ${v.round ?? ""}`, `Draw pile: ${v.supply ?? 0}`, `Discards: ${(v.discard_pile || []).length}`,
      `Stars to win: ${v.target ?? ""}`];
    if ((v.winners || []).length) facts.push(`Winner: ${v.winners.map((s) => seatName(t, s)).join(", ")}`);
    return `<div class="board what-else"><div class="seats n${v.players}">${seats}</div>` +
      `<div class="centre"><div class="facts">${facts.map((f) => `<span>${f}</span>`).join("")}</div>${shownPile}</div></div>`;
  }

  // --- Stars and Bars ------------------------------------------------------------------

  function starsAndBars(t) {
    const v = t.view, centre = new Set(v.centre || []);
    let cells = "";
    (v.board || []).forEach((space, i) => {
      const name = "abcd"[i % 4] + (Math.floor(i / 4) + 1);
      const owner = space.owner !== null && space.owner !== undefined ? ` style="--seat:${colourOf(t, space.owner)}" data-owner="${space.owner}"` : "";
      let inside = "";
      if (space.top) inside = face(t, space.top, "");
      else if (space.face_down) inside = `<svg class="card landscape" viewBox="0 0 140 100">${Cards.back(0, 0, 140, 100)}</svg>`;
      const height = space.height > 1 || space.face_down ? `<span class="height">${space.height}</span>` : "";
      cells += `<div class="space${centre.has(i) ? " centre-space" : ""}${owner ? " owned" : ""}" data-space="${name}"${owner}>` +
        `<span class="space-name">${name}</span>${inside}${height}</div>`;
    });
    let hands = "";
    for (let seat = 0; seat < v.players; seat++) {
      const hand = ((v.hands || [])[seat] || []).map((code) => face(t, code, "")).join("");
      hands += seatBox(t, seat, `<div class="open-hand">${hand}</div><div class="stats"><span class="stat">score <b>${(v.scores || [])[seat] ?? 0}</b></span></div>`);
    }
    const facts = [`Round ${v.round ?? ""}`, `Rounds played: ${v.rounds ?? 0}`, `Deck: ${v.deck ?? 0}`, `Discards: ${v.discards ?? 0}`];
    if (v.result) facts.push(esc(typeof v.result === "string" ? v.result : "Game over"));
    return `<div class="board bars"><div class="facts">${facts.map((f) => `<span>${f}</span>`).join("")}</div>` +
      `<div class="bars-main"><div class="grid">${cells}</div><div class="seats n${v.players}">${hands}</div></div></div>`;
  }

  const DRAW = {stars: tricks, hearts: tricks, star_patience: starPatience, what_else: whatElse,
    stars_and_bars: starsAndBars};

  function draw(t) {
    const drawer = DRAW[t.game] || tricks;
    return drawer(t);
  }

  return {draw, seatName};
})();
