// Cards drawn in SVG as the window draws them (client/ui/cardart.py and each game's cards.py):
// what a code shows (rank, suit shape, colours, a what-else card's stars, a Stars and Bars
// card's shape) comes from the server side's faces, which reads the window's own card data.
"use strict";

const Cards = (() => {
  const PAPER = "#faf8f2", EDGE = "#787880", BACK = "#263a78", BACK_PATTERN = "#4660aa";
  const esc = (text) => String(text).replace(/[&<>"']/g,
    (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

  function starPoints(cx, cy, r, points, inner, turn) {
    const out = [];
    for (let i = 0; i < points * 2; i++) {
      const radius = i % 2 ? r * inner : r;
      const angle = (turn || -Math.PI / 2) + i * Math.PI / points;
      out.push(`${(cx + radius * Math.cos(angle)).toFixed(2)},${(cy + radius * Math.sin(angle)).toFixed(2)}`);
    }
    return out.join(" ");
  }

  // Each suit its own silhouette, in a 100 x 100 box.
  const SUIT_SHAPES = {
    heart: (c) => `<path fill="${c}" d="M50 92C18 66 4 48 8 28 12 10 34 4 50 24 66 4 88 10 92 28 96 48 82 66 50 92Z"/>`,
    diamond: (c) => `<path fill="${c}" d="M50 4L88 50 50 96 12 50Z"/>`,
    club: (c) => `<g fill="${c}"><circle cx="50" cy="28" r="20"/><circle cx="27" cy="58" r="20"/>` +
      `<circle cx="73" cy="58" r="20"/><path d="M44 55h12l8 40H36z"/></g>`,
    spade: (c) => `<g fill="${c}"><path d="M50 6C18 36 6 50 10 66 14 82 36 86 50 68 64 86 86 82 90 66 94 50 82 36 50 6Z"/>` +
      `<path d="M45 64h10l9 32H36z"/></g>`,
    star: (c) => `<polygon fill="${c}" points="${starPoints(50, 54, 46, 5, 0.45)}"/>`,
    skull: (c) => `<g><ellipse fill="${c}" cx="50" cy="42" rx="38" ry="36"/><rect fill="${c}" x="30" y="66" width="40" height="24" rx="5"/>` +
      `<circle fill="#fff" cx="35" cy="44" r="10"/><circle fill="#fff" cx="65" cy="44" r="10"/>` +
      `<path fill="#fff" d="M50 56l6 10H44z"/><path stroke="#fff" stroke-width="3" d="M42 78v12M50 78v12M58 78v12"/></g>`,
    shield: (c) => `<path fill="${c}" d="M12 10H88V48C88 74 50 94 50 94S12 74 12 48Z"/>`,
    wand: (c) => `<g fill="${c}"><path d="M20 88l-8-8 48-48 8 8z"/><polygon points="${starPoints(72, 28, 24, 5, 0.45)}"/></g>`,
    leaf: (c) => `<g><path fill="${c}" d="M50 4C86 28 90 66 50 96 10 66 14 28 50 4Z"/>` +
      `<path stroke="#fff" stroke-width="3" fill="none" d="M50 20V90M50 50l16-14M50 66l-16-14"/></g>`,
    joker: (c) => `<g><circle fill="${c}" cx="50" cy="50" r="44"/><polygon fill="#fff" points="${starPoints(50, 52, 32, 5, 0.45)}"/></g>`,
    unknown: (c) => `<circle fill="${c}" cx="50" cy="50" r="30"/>`,
  };

  function symbol(shape, colour, x, y, size) {
    const draw = SUIT_SHAPES[shape] || SUIT_SHAPES.unknown;
    return `<g transform="translate(${x} ${y}) scale(${size / 100})">${draw(colour)}</g>`;
  }

  // A card's drawing inside a w x h box at (x, y): an SVG group.
  function card(code, face, x, y, w, h) {
    if (!face) return back(x, y, w, h);
    const inner = face.kind === "bars" ? barsCard(face, w, h)
      : face.kind === "what_else" ? whatElseCard(face, w, h) : suitedCard(face, w, h);
    const r = Math.min(w, h) / 12;
    return `<g class="face" transform="translate(${x} ${y})" data-code="${esc(code)}"><title>${esc(face.name)}</title>` +
      `<rect width="${w}" height="${h}" rx="${r}" fill="${PAPER}" stroke="${EDGE}" stroke-width="${Math.max(1, w / 60)}"/>` +
      inner + `</g>`;
  }

  function suitedCard(face, w, h) {
    const s = w / 100, ink = face.ink;
    const big = face.joker ? "JK" : face.rank;
    const corner = `<text x="${8 * s}" y="${27 * s}" font-size="${(big.length > 1 ? 24 : 28) * s}" font-weight="700" fill="${ink}" font-family="sans-serif">${esc(big)}</text>` +
      symbol(face.shape, face.colour, 8 * s, 32 * s, 22 * s);
    const flipped = `<g transform="rotate(180 ${w / 2} ${h / 2})">${corner}</g>`;
    let middle;
    if (face.pips > 1 && face.pips <= 10) {
      middle = pips(face, w, h);
    } else {
      const size = (face.pips === 1 ? 52 : 46) * s;
      middle = symbol(face.shape, face.colour, (w - size) / 2, (h - size) / 2 + (face.pips ? 0 : 8 * s), size);
      if (!face.pips && !face.joker) {
        middle += `<text x="${w / 2}" y="${h * 0.36}" text-anchor="middle" font-size="${26 * s}" font-weight="700" fill="${ink}" font-family="serif">${esc(face.rank)}</text>`;
      }
    }
    return corner + flipped + middle;
  }

  // Where the pips sit, as client/ui/cardart.py's _PIPS.
  const PIPS = {
    2: [[.5, 0], [.5, 1]], 3: [[.5, 0], [.5, .5], [.5, 1]], 4: [[0, 0], [1, 0], [0, 1], [1, 1]],
    5: [[0, 0], [1, 0], [.5, .5], [0, 1], [1, 1]], 6: [[0, 0], [1, 0], [0, .5], [1, .5], [0, 1], [1, 1]],
    7: [[0, 0], [1, 0], [.5, .25], [0, .5], [1, .5], [0, 1], [1, 1]],
    8: [[0, 0], [1, 0], [.5, .25], [0, .5], [1, .5], [.5, .75], [0, 1], [1, 1]],
    9: [[0, 0], [1, 0], [0, 1 / 3], [1, 1 / 3], [.5, .5], [0, 2 / 3], [1, 2 / 3], [0, 1], [1, 1]],
    10: [[0, 0], [1, 0], [.5, 1 / 6], [0, 1 / 3], [1, 1 / 3], [0, 2 / 3], [1, 2 / 3], [.5, 5 / 6], [0, 1], [1, 1]],
  };

  function pips(face, w, h) {
    const size = w * 0.17, left = w * 0.39, top = h * 0.16, width = w * 0.22, height = h * 0.68 - size;
    return PIPS[face.pips].map(([px, py]) =>
      symbol(face.shape, face.colour, left + px * width - size / 2, top + py * height, size)).join("");
  }

  function starShape(star, cx, cy, r) {
    const body = star.points ? `<polygon fill="${star.colour}" stroke="#282430" stroke-width="${r / 12}" points="${starPoints(cx, cy, r, star.points, star.inner)}"/>`
      : `<circle fill="${star.colour}" stroke="#282430" stroke-width="${r / 12}" cx="${cx}" cy="${cy}" r="${r * star.inner}"/>`;
    return body + `<text x="${cx}" y="${cy + r * 0.3}" text-anchor="middle" font-size="${r * 0.8}" font-weight="700" fill="${star.ink}" font-family="sans-serif">${star.letter}</text>`;
  }

  function whatElseCard(face, w, h) {
    const s = w / 100;
    const number = face.number === null ? "★" : String(face.number);
    let out = `<text x="${w / 2}" y="${h * 0.42}" text-anchor="middle" font-size="${(number.length > 1 ? 44 : 50) * s}" font-weight="800" fill="#18181c" font-family="sans-serif">${number}</text>` +
      `<text x="${7 * s}" y="${20 * s}" font-size="${17 * s}" font-weight="700" fill="#18181c" font-family="sans-serif">${number}</text>`;
    const stars = face.stars;
    if (stars.length === 1) out += starShape(stars[0], w / 2, h * 0.7, 22 * s);
    else stars.forEach((star, i) => {
      const cx = w * (0.14 + 0.18 * i), cy = h * (0.66 + (i % 2) * 0.14);
      out += starShape(star, cx, cy, 11 * s);
    });
    return out;
  }

  // Stars and Bars: one shape, large or small, solid or hollow, in its colour and texture.
  function barsCard(face, w, h) {
    const big = face.size === "large", r = Math.min(w, h) * (big ? 0.36 : 0.2);
    const cx = w / 2, cy = h / 2, id = `t${face.letter}`;
    const fill = face.fill === "solid" ? `url(#${id})` : "none";
    const stroke = `stroke="${face.colour}" stroke-width="${Math.max(2, r / 5)}"`;
    let shape;
    if (face.shape === "star") shape = `<polygon ${stroke} fill="${fill}" points="${starPoints(cx, cy + r * 0.08, r * 1.1, 5, 0.45)}"/>`;
    else if (face.shape === "circle") shape = `<circle ${stroke} fill="${fill}" cx="${cx}" cy="${cy}" r="${r}"/>`;
    else if (face.shape === "triangle") shape = `<polygon ${stroke} fill="${fill}" points="${cx},${cy - r} ${cx + r * 1.05},${cy + r * 0.75} ${cx - r * 1.05},${cy + r * 0.75}"/>`;
    else shape = `<rect ${stroke} fill="${fill}" x="${cx - r * 1.3}" y="${cy - r * 0.45}" width="${r * 2.6}" height="${r * 0.9}" rx="${r / 8}"/>`;
    const letter = (x, y) => `<text x="${x}" y="${y}" text-anchor="middle" font-size="${h * 0.2}" font-weight="700" fill="${face.letter_colour}" font-family="sans-serif">${face.letter}</text>`;
    return texture(face, id) + shape + letter(w * 0.1, h * 0.22) + letter(w * 0.9, h * 0.94);
  }

  function texture(face, id) {
    // Red diagonal hatching, yellow dots, blue horizontal lines (client/games/stars_and_bars/cards.py).
    const marks = face.letter === "R" ? `<path d="M0 8L8 0" stroke="${face.texture}" stroke-width="1.6"/>`
      : face.letter === "Y" ? `<circle cx="4" cy="4" r="1.4" fill="${face.texture}"/>`
        : `<path d="M0 4H8" stroke="${face.texture}" stroke-width="1.6"/>`;
    return `<defs><pattern id="${id}" width="8" height="8" patternUnits="userSpaceOnUse">` +
      `<rect width="8" height="8" fill="${face.colour}"/>${marks}</pattern></defs>`;
  }

  function back(x, y, w, h) {
    const r = Math.min(w, h) / 12;
    return `<g class="back" transform="translate(${x} ${y})"><rect width="${w}" height="${h}" rx="${r}" fill="${BACK}" stroke="${EDGE}" stroke-width="${Math.max(1, w / 60)}"/>` +
      `<rect x="${w * 0.1}" y="${h * 0.08}" width="${w * 0.8}" height="${h * 0.84}" rx="${r / 2}" fill="none" stroke="${BACK_PATTERN}" stroke-width="${Math.max(1, w / 25)}"/>` +
      `<polygon fill="${BACK_PATTERN}" points="${starPoints(w / 2, h / 2, w * 0.22, 5, 0.45)}"/></g>`;
  }

  // A card as an HTML element: portrait 100 x 140, or landscape for Stars and Bars.
  function element(code, face, classes) {
    const landscape = face && face.kind === "bars";
    const [w, h] = landscape ? [140, 100] : [100, 140];
    const named = face ? ` role="img" aria-label="${esc(face.name)}" data-code="${esc(code)}"` : ` role="img" aria-label="a card face down"`;
    return `<svg class="card${landscape ? " landscape" : ""} ${classes || ""}" viewBox="0 0 ${w} ${h}"${named}>${card(code, face, 0, 0, w, h)}</svg>`;
  }

  function backs(count, max) {
    const shown = Math.min(count, max || 13);
    let out = `<span class="backs" title="${count} cards">`;
    for (let i = 0; i < shown; i++) out += `<svg class="card small" viewBox="0 0 100 140">${back(0, 0, 100, 140)}</svg>`;
    return out + `</span>`;
  }

  return {card, element, back, backs, symbol, starPoints, esc, starShape};
})();
