// The board as SVG, drawn from the API's `state` in the look of mortyenv.render.render_rgb:
// a title band, the display and the special rack, the badges with their pennants, one panel
// per player (shelf, labels, kittens, row bonuses, score) and a legend. Only drawing here;
// app.js decides what is selected and what a click does.

const SVG = "http://www.w3.org/2000/svg";

const LID_FILL = { BLACK: "#2e2c34", SILVER: "#bec5ce", GOLD: "#e2b234", BLUE: "#2e6ccc" };
const LID_INK = { BLACK: "#fafafa", BLUE: "#ffffff" };
const TINT = { EYE: "#d6e8fa", MANDRAKE: "#d4eed0", MUSHROOM: "#fadad6", CLOUD: "#96c8f0" };
const FALLBACK = ["#e74c3c", "#27ae60", "#8e44ad", "#3498db", "#f39c12"];
export const COLORS = {
  bg: "#faf5eb", ink: "#282230", muted: "#807682", shelf: "#c49a6c", cell: "#f6ecd6",
  band: "#3b2a4f", accent: "#f08228", good: "#2ea05a", panel: "#fffbf3", hint: "#2e6ccc",
};

const TILE = 62; // shelf cell size, as in render_rgb
const GAP = 6;
const STRIP = 18; // label strip under each shelf cell
const MARGIN = 16;
const PANEL_W = 560;

// ------------------------------------------------------------------ small helpers
function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function hex(color) {
  return [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
}

/** `a` faded toward `b` by t (0 = a, 1 = b). */
export function mix(a, b, t) {
  const [x, y] = [hex(a), hex(b)];
  return "#" + x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, "0")).join("");
}

function text(parent, x, y, content, { size = 13, fill = COLORS.ink, bold = false, anchor = "start", baseline = "hanging", cls = null } = {}) {
  return el("text", {
    x, y, fill, "font-size": size, "font-weight": bold ? "bold" : null,
    "text-anchor": anchor, "dominant-baseline": baseline, class: cls,
  }, parent, content);
}

function rect(parent, x, y, w, h, attrs = {}) {
  return el("rect", { x, y, width: w, height: h, ...attrs }, parent);
}

function circle(parent, cx, cy, r, attrs = {}) {
  return el("circle", { cx, cy, r, ...attrs }, parent);
}

function polygon(parent, points, fill) {
  return el("polygon", { points: points.map((p) => p.join(",")).join(" "), fill }, parent);
}

// ------------------------------------------------------------------ ingredient glyphs
/** A small picture of an ingredient on a tinted disk; `fade` blends it into the shelf. */
export function glyph(parent, cx, cy, r, name, index, fade = 0) {
  const c = (color) => mix(color, COLORS.cell, fade);
  const g = el("g", { class: "glyph" }, parent);
  const tint = TINT[name] || mix(FALLBACK[index % FALLBACK.length], "#ffffff", 0.6);
  circle(g, cx, cy, r, { fill: c(tint), stroke: c(mix(tint, COLORS.ink, 0.45)), "stroke-width": 1 });
  const k = r * 0.78;
  if (name === "EYE") {
    el("ellipse", { cx, cy, rx: k, ry: k * 0.55, fill: c("#ffffff"), stroke: c(COLORS.ink), "stroke-width": 1 }, g);
    circle(g, cx, cy, k * 0.42, { fill: c("#2e86de") });
    circle(g, cx, cy, k * 0.2, { fill: c("#14141e") });
    circle(g, cx + k * 0.13, cy - k * 0.13, k * 0.08, { fill: c("#ffffff") });
  } else if (name === "MUSHROOM") {
    rect(g, cx - k * 0.22, cy - k * 0.1, k * 0.44, k * 0.85, { rx: k * 0.1, fill: c("#f5ebd7"), stroke: c(COLORS.ink), "stroke-width": 1 });
    const [x0, x1, top, bottom] = [cx - k * 0.9, cx + k * 0.9, cy - k * 0.85, cy + k * 0.55];
    const midY = (top + bottom) / 2;
    el("path", { d: `M ${x0} ${midY} A ${k * 0.9} ${(bottom - top) / 2} 0 0 1 ${x1} ${midY} Z`, fill: c("#de3c32") }, g);
    for (const [dx, dy, rr] of [[-0.45, -0.28, 0.13], [0.1, -0.55, 0.12], [0.5, -0.22, 0.11]]) {
      circle(g, cx + dx * k, cy + dy * k, rr * k, { fill: c("#ffffff") });
    }
  } else if (name === "CLOUD") {
    const [white, edge] = [c("#ffffff"), c("#6e8cb4")];
    const puffs = [[-0.45, 0.12, 0.36], [0.42, 0.12, 0.36], [0.0, -0.15, 0.48]];
    for (const [dx, dy, rr] of puffs) circle(g, cx + dx * k, cy + dy * k, rr * k + 0.8, { fill: edge });
    rect(g, cx - k * 0.8, cy + k * 0.05, k * 1.6, k * 0.43, { rx: k * 0.2, fill: edge });
    for (const [dx, dy, rr] of puffs) circle(g, cx + dx * k, cy + dy * k, rr * k, { fill: white });
    rect(g, cx - k * 0.78, cy + k * 0.08, k * 1.56, k * 0.38, { rx: k * 0.18, fill: white });
  } else if (name === "MANDRAKE") {
    for (const angle of [-35, 0, 35]) {
      const a = ((angle - 90) * Math.PI) / 180;
      const side = (angle * Math.PI) / 180;
      const tip = [cx + Math.cos(a) * k * 0.95, cy - k * 0.1 + Math.sin(a) * k * 0.85];
      const w = k * 0.16;
      const base = [cx, cy - k * 0.25];
      polygon(g, [
        [base[0] - Math.cos(side) * w, base[1] - Math.sin(side) * w], tip,
        [base[0] + Math.cos(side) * w, base[1] + Math.sin(side) * w],
      ], c("#279646"));
    }
    polygon(g, [
      [cx - k * 0.38, cy - k * 0.28], [cx + k * 0.38, cy - k * 0.28],
      [cx + k * 0.08, cy + k * 0.85], [cx - k * 0.08, cy + k * 0.85],
    ], c("#c49664"));
    circle(g, cx - k * 0.12, cy + k * 0.05, k * 0.06, { fill: c(COLORS.ink) });
    circle(g, cx + k * 0.12, cy + k * 0.05, k * 0.06, { fill: c(COLORS.ink) });
  } else {
    text(g, cx, cy, name.slice(0, 1), { size: Math.max(8, Math.round(r)), bold: true, anchor: "middle", baseline: "central" });
  }
  return g;
}

// ------------------------------------------------------------------ tiles
/** A tile: lid-coloured body, number top left, the face on show; loose tiles (display and
 * rack) also show their back small in the top right corner, since a flip would show it. */
export function tile(parent, rules, x, y, size, t, { showBack = false, flipped = false } = {}) {
  const g = el("g", { class: "tile" }, parent);
  const body = LID_FILL[t.lid] || FALLBACK[rules.lids.indexOf(t.lid) % FALLBACK.length];
  const ink = LID_INK[t.lid] || COLORS.ink;
  const [face, back] = flipped ? [t.back, t.face] : [t.face, t.back];
  rect(g, x + 1.5, y + 2.5, size, size, { rx: size * 0.14, fill: mix(COLORS.shelf, COLORS.ink, 0.35) });
  rect(g, x, y, size, size, { rx: size * 0.14, fill: body, stroke: mix(body, COLORS.ink, 0.5), "stroke-width": 1 });
  text(g, x + size * 0.1, y + size * 0.07, String(t.number), { size: Math.round(size * 0.3), fill: ink, bold: true });
  const r = size * 0.28;
  circle(g, x + size * 0.62, y + size * 0.64, r + 1.5, { fill: mix(body, "#ffffff", 0.15) });
  glyph(g, x + size * 0.62, y + size * 0.64, r, face, rules.ingredients.indexOf(face));
  if (showBack) {
    glyph(g, x + size * 0.8, y + size * 0.2, size * 0.13, back, rules.ingredients.indexOf(back), 0.15);
  }
  el("title", {}, g, `${t.number} ${t.lid.toLowerCase()} ${face.toLowerCase()} (back ${back.toLowerCase()})`);
  return g;
}

function emptySlot(parent, x, y, size) {
  rect(parent, x, y, size, size, {
    rx: size * 0.14, fill: mix(COLORS.cell, COLORS.shelf, 0.25),
    stroke: mix(COLORS.cell, COLORS.shelf, 0.6), "stroke-width": 1,
  });
}

function kitten(parent, cx, cy, r) {
  const fur = "#786e7d";
  polygon(parent, [[cx - r, cy - r * 0.2], [cx - r * 0.8, cy - r * 1.25], [cx - r * 0.2, cy - r * 0.8]], fur);
  polygon(parent, [[cx + r, cy - r * 0.2], [cx + r * 0.8, cy - r * 1.25], [cx + r * 0.2, cy - r * 0.8]], fur);
  circle(parent, cx, cy, r, { fill: fur });
  circle(parent, cx - r * 0.38, cy - r * 0.1, r * 0.16, { fill: "#ffe678" });
  circle(parent, cx + r * 0.38, cy - r * 0.1, r * 0.16, { fill: "#ffe678" });
  polygon(parent, [[cx - r * 0.12, cy + r * 0.25], [cx + r * 0.12, cy + r * 0.25], [cx, cy + r * 0.4]], "#f096a0");
}

// ------------------------------------------------------------------ sections
function name(state, seat) {
  if (state.seat === seat) return `Player ${seat} (you)`;
  return `Player ${seat} · ${state.players[seat]}`;
}

function title(svg, state, width) {
  rect(svg, 0, 0, width, 62, { fill: COLORS.band });
  text(svg, MARGIN, 10, "Morty Sorty Magic Shop", { size: 22, fill: "#ffffff", bold: true });
  const n = state.players.length;
  text(svg, MARGIN, 40, `${n} players  ·  board side ${state.side}  ·  ${state.mode === "basic" ? "basic scoring" : state.mode}  ·  ruleset ${state.rules.name} v${state.rules.version}`,
    { size: 12, fill: "#dcd2eb" });
  let status;
  if (state.over) {
    const who = state.winners.map((s) => `P${s}`).join(" & ");
    status = `Game over  ·  ${state.winners.length === 1 ? "winner" : "shared victory"} ${who}`;
  } else {
    const phase = state.phase === "special" ? "special jar" : "draft";
    const you = state.to_play === state.seat ? " (you)" : "";
    status = `Round ${state.round + 1} / ${state.rounds}  ·  ${phase}  ·  P${state.to_play}${you} to play`;
  }
  text(svg, width - MARGIN, 14, status, { size: 17, fill: "#ffd678", bold: true, anchor: "end", cls: "status" });
  text(svg, width - MARGIN, 40, `bag ${state.bag_count}  ·  removed ${state.removed_count}  ·  discarded ${state.discarded_count}`,
    { size: 12, fill: "#dcd2eb", anchor: "end" });
  return 62;
}

/** The display and the special rack; the slots the human may take from are buttons. */
function table(svg, state, y, ui) {
  const [size, gap] = [58, 8];
  const drafting = !state.over && state.phase === "draft";
  const special = !state.over && state.phase === "special";
  const takeable = new Set(state.legal.filter((m) => m.source !== null).map((m) => m.source));
  text(svg, MARGIN, y + 10, "Display", { size: 14, bold: true, fill: drafting ? COLORS.accent : COLORS.ink });
  const slot = (source, placed, tx, ty, sz) => {
    const g = el("g", { class: "slot", "data-source": source }, svg);
    if (placed === null) {
      emptySlot(g, tx, ty, sz);
    } else {
      const chosen = ui.selected === source;
      tile(g, state.rules, tx, ty, sz, placed, { showBack: true, flipped: chosen && ui.flip === 1 });
      if (takeable.has(source)) {
        g.classList.add("takeable");
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `${source}: ${placed.number} ${placed.lid.toLowerCase()} ${placed.face.toLowerCase()}`);
        g.setAttribute("aria-pressed", chosen ? "true" : "false");
      } else if (state.legal.length && source[0] === (special ? "R" : "D")) {
        g.classList.add("blocked");
      }
      if (chosen) rect(g, tx - 4, ty - 4, sz + 8, sz + 8, { rx: sz * 0.18, class: "selected-ring" });
      if (ui.hint && ui.hint.source === source) rect(g, tx - 4, ty - 4, sz + 8, sz + 8, { rx: sz * 0.18, class: "hint-ring" });
    }
    text(svg, tx + sz / 2, y + 32 + size + 6, source, { size: 11, fill: COLORS.muted, anchor: "middle" });
  };
  state.display.forEach((placed, s) => slot(`D${s}`, placed, MARGIN + s * (size + gap), y + 32, size));
  const x = MARGIN + 5 * (size + gap) + 24;
  const [rsize, rgap] = [50, 6];
  const rackTitle = "Special rack" + (special ? `  ← P${state.to_play}'s special jar` : "");
  text(svg, x, y + 10, rackTitle, { size: 14, bold: true, fill: special ? COLORS.accent : COLORS.ink });
  state.rack.forEach((placed, i) => slot(`R${i}`, placed, x + i * (rsize + rgap), y + 32 + (size - rsize), rsize));
  return y + 32 + size + 26;
}

function pennant(svg, x, y, value, holder) {
  const taken = holder !== null;
  const color = taken ? COLORS.accent : mix(COLORS.accent, COLORS.bg, 0.6);
  el("line", { x1: x, y1: y - 2, x2: x, y2: y + 34, stroke: COLORS.ink, "stroke-width": 2 }, svg);
  polygon(svg, [[x, y], [x + 30, y + 10], [x, y + 20]], color);
  text(svg, x + 10, y + 10, String(value), { size: 11, bold: true, baseline: "central", fill: taken ? "#ffffff" : mix(COLORS.accent, COLORS.ink, 0.2) });
  if (taken) text(svg, x + 4, y + 24, `P${holder}`, { size: 11, bold: true });
}

function badges(svg, state, y, width) {
  const n = state.badges.length;
  const cardW = (width - 2 * MARGIN - (n - 1) * 12) / Math.max(n, 1);
  state.badges.forEach((badge, k) => {
    const x = MARGIN + k * (cardW + 12);
    rect(svg, x, y, cardW, 56, { rx: 8, fill: "#fffcf5", stroke: mix(COLORS.shelf, COLORS.bg, 0.3), "stroke-width": 1 });
    text(svg, x + 12, y + 9, `Badge: ${badge.name}`, { size: 14, bold: true });
    text(svg, x + 12, y + 31, badge.requirement, { size: 12, fill: COLORS.muted });
    badge.pennants.forEach((p, i) => pennant(svg, x + cardW - (badge.pennants.length - i) * 40, y + 10, p.value, p.seat));
  });
  return y + 56 + 14;
}

function panelHeight(rules) {
  return 44 + rules.rows * (TILE + STRIP + GAP) + 40;
}

/** One player's panel. On the human's shelf the cells the selected tile may go to are
 * buttons, each with its kitten cost. */
function panel(svg, state, seat, x, y, ui) {
  const rules = state.rules;
  const height = panelHeight(rules);
  const toPlay = !state.over && seat === state.to_play;
  const winner = state.over && state.winners.includes(seat);
  const border = toPlay ? COLORS.accent : winner ? COLORS.good : mix(COLORS.shelf, COLORS.bg, 0.2);
  const g = el("g", { class: "panel", "data-seat": seat }, svg);
  rect(g, x, y, PANEL_W, height, { rx: 12, fill: COLORS.panel, stroke: border, "stroke-width": toPlay || winner ? 3 : 1 });
  const score = state.scores[seat];
  const tag = toPlay ? "  ← to play" : winner ? "  ★ winner" : "";
  const label = text(g, x + 14, y + 10, name(state, seat) + tag, { size: 16, bold: true, fill: toPlay ? COLORS.accent : winner ? COLORS.good : COLORS.ink });
  const total = text(g, x + PANEL_W - 14, y + 8, `${score.total} ★`, { size: 20, bold: true, anchor: "end", cls: "total" });
  // the kittens sit between the name and the total: as many drawn as fit, the rest as "+n"
  const kx = Math.max(x + 200, x + 14 + label.getComputedTextLength() + 16);
  const room = x + PANEL_W - 14 - total.getComputedTextLength() - 30 - (kx + 58);
  text(g, kx, y + 13, "kittens", { size: 12, fill: COLORS.muted });
  const kittens = state.kittens[seat];
  const shown = Math.max(0, Math.min(kittens, 8, Math.floor(room / 19)));
  for (let i = 0; i < shown; i++) kitten(g, kx + 58 + i * 19, y + 21, 7);
  if (kittens > shown || kittens === 0) {
    text(g, kx + 58 + shown * 19 - (shown ? 4 : 8), y + 13, `${shown ? "+" : ""}${kittens - shown}`, { size: 12, bold: true });
  }
  const [sx, sy] = [x + 80, y + 44];
  const shelfW = rules.cols * (TILE + GAP) - GAP;
  const shelfH = rules.rows * (TILE + STRIP + GAP) - GAP;
  rect(g, sx - 8, sy - 6, shelfW + 16, shelfH + 12, { rx: 8, fill: COLORS.shelf });
  const labels = new Map(state.labels.map((l) => [`${l.row},${l.col}`, l.ingredient]));
  const targets = seat === state.seat ? ui.targets : new Map();
  for (let r = 0; r < rules.rows; r++) {
    const ry = sy + r * (TILE + STRIP + GAP);
    text(g, x + 14, ry + TILE / 2, rules.row_names[r], { size: 12, fill: COLORS.muted, baseline: "central" });
    for (let c = 0; c < rules.cols; c++) {
      const cx = sx + c * (TILE + GAP);
      const cell = el("g", { class: "cell", "data-seat": seat, "data-row": r, "data-col": c }, g);
      rect(cell, cx, ry, TILE, TILE + STRIP, { rx: 6, fill: COLORS.cell, class: "cell-bg" });
      const placed = state.shelves[seat][r][c];
      const label = labels.get(`${r},${c}`);
      if (placed !== null) {
        const t = tile(cell, rules, cx + 2, ry + 2, TILE - 4, placed);
        if (ui.fresh.has(`${seat},${r},${c}`)) t.classList.add("fresh");
      } else if (label !== undefined) {
        glyph(cell, cx + TILE / 2, ry + TILE / 2, TILE * 0.3, label, rules.ingredients.indexOf(label), 0.55);
      }
      if (label !== undefined) labelStrip(cell, rules, cx, ry + TILE, placed, label);
      const target = targets.get(`${r},${c}`);
      if (target !== undefined) {
        cell.classList.add("target");
        cell.setAttribute("tabindex", "0");
        cell.setAttribute("role", "button");
        const cost = target.cost ? `${target.cost} kitten${target.cost > 1 ? "s" : ""}` : "free";
        cell.setAttribute("aria-label", `${rules.row_names[r]} row, column ${c}: ${cost}`);
        rect(cell, cx + 1, ry + 1, TILE - 2, TILE + STRIP - 2, { rx: 6, class: "target-ring" });
        if (target.cost) {
          kitten(cell, cx + TILE - 14, ry + 14, 6);
          text(cell, cx + TILE - 24, ry + 14, String(target.cost), { size: 12, bold: true, anchor: "end", baseline: "central", fill: COLORS.accent });
        } else {
          text(cell, cx + TILE - 6, ry + 6, "free", { size: 10, bold: true, anchor: "end", fill: COLORS.good });
        }
      }
      if (ui.cursor && seat === state.seat && ui.cursor.row === r && ui.cursor.col === c) {
        rect(cell, cx - 2, ry - 2, TILE + 4, TILE + STRIP + 4, { rx: 8, class: "cursor-ring" });
      }
      if (ui.hint && seat === state.seat && ui.hint.row === r && ui.hint.col === c) {
        rect(cell, cx - 2, ry - 2, TILE + 4, TILE + STRIP + 4, { rx: 8, class: "hint-ring" });
      }
    }
    const [bx, by] = [sx + shelfW + 34, ry + TILE / 2];
    const done = state.rows_done[seat][r];
    circle(g, bx, by, 17, { fill: done ? COLORS.good : COLORS.panel, stroke: done ? COLORS.good : mix(COLORS.shelf, COLORS.bg, 0.2), "stroke-width": 2 });
    text(g, bx, by, `+${rules.row_bonus[r]}`, { size: 12, bold: true, fill: done ? "#ffffff" : COLORS.muted, anchor: "middle", baseline: "central" });
  }
  const parts = [["rows", score.rows], ["basic", score.basic]];
  if (state.mode !== "basic") parts.push(["extra", score.extra]);
  parts.push(["labels", score.labels], ["kittens", score.kittens], ["badges", score.badges]);
  text(g, x + 14, y + height - 26, parts.map(([k, v]) => `${k} ${v}`).join("   "), { size: 12, fill: COLORS.muted });
}

function labelStrip(parent, rules, x, y, placed, label) {
  const matched = placed !== null && placed.face === label;
  if (matched) rect(parent, x + 3, y + 2, TILE - 6, STRIP - 4, { rx: 6, fill: COLORS.good });
  glyph(parent, x + TILE / 2 - (matched ? 8 : 0), y + STRIP / 2, 6.5, label, rules.ingredients.indexOf(label));
  if (matched) text(parent, x + TILE / 2 + 10, y + STRIP / 2, "✓", { size: 12, bold: true, fill: "#ffffff", anchor: "middle", baseline: "central" });
}

function scoreTable(svg, state, x, y) {
  const height = panelHeight(state.rules);
  rect(svg, x, y, PANEL_W, height, { rx: 12, fill: COLORS.panel, stroke: mix(COLORS.shelf, COLORS.bg, 0.2), "stroke-width": 1 });
  text(svg, x + 14, y + 10, state.over ? "Final score" : "Score if the game ended now", { size: 16, bold: true });
  const rows = [["rows", "rows"], ["basic", "basic"]];
  if (state.mode !== "basic") rows.push(["extra", "extra"]);
  rows.push(["labels", "labels"], ["kittens", "kittens"], ["badges", "badges"], ["total", "total"]);
  const n = state.players.length;
  const colW = Math.min(90, (PANEL_W - 170) / n);
  const top = y + 50;
  for (let p = 0; p < n; p++) text(svg, x + 170 + (p + 0.5) * colW, top, `P${p}`, { size: 13, bold: true, anchor: "middle" });
  rows.forEach(([label, key], i) => {
    const ry = top + 28 + i * 26;
    const last = key === "total";
    if (last) el("line", { x1: x + 14, y1: ry - 6, x2: x + PANEL_W - 14, y2: ry - 6, stroke: mix(COLORS.shelf, COLORS.bg, 0.2) }, svg);
    text(svg, x + 14, ry, label, { size: 13, bold: last, fill: last ? COLORS.ink : COLORS.muted });
    for (let p = 0; p < n; p++) text(svg, x + 170 + (p + 0.5) * colW, ry, String(state.scores[p][key]), { size: 13, bold: last, anchor: "middle" });
  });
}

function legend(svg, state, y, width) {
  const rules = state.rules;
  let x = MARGIN;
  rules.ingredients.forEach((ing, i) => {
    glyph(svg, x + 9, y + 9, 9, ing, i);
    const label = text(svg, x + 22, y + 9, ing.toLowerCase(), { size: 12, fill: COLORS.muted, baseline: "central" });
    x += 36 + label.getComputedTextLength();
  });
  x += 14;
  rules.lids.forEach((lid, i) => {
    const fill = LID_FILL[lid] || FALLBACK[i % FALLBACK.length];
    rect(svg, x, y + 1, 16, 16, { rx: 3, fill, stroke: mix(fill, COLORS.ink, 0.5) });
    const rows = rules.lid_rows[lid].map((r) => rules.row_names[r]).join("/");
    const label = text(svg, x + 22, y + 9, `${lid.toLowerCase()} (${rows})`, { size: 12, fill: COLORS.muted, baseline: "central" });
    x += 26 + label.getComputedTextLength();
  });
  text(svg, width - MARGIN, y + 9, "labels: ✓ = matched", { size: 12, fill: COLORS.muted, anchor: "end", baseline: "central" });
}

/** Draw `state` into the <svg> element. `ui`: {selected, flip, targets (Map "r,c" -> legal
 * move), cursor {row, col}, hint {source, row, col}, fresh (Set "seat,r,c")}. */
export function drawBoard(svg, state, ui) {
  const n = state.players.length;
  const cols = n === 1 ? 1 : 2;
  const width = MARGIN * 2 + cols * PANEL_W + (cols - 1) * MARGIN;
  const panelRows = Math.ceil(n / cols);
  const height = 62 + 116 + 70 + 8 + panelRows * (panelHeight(state.rules) + MARGIN) + 30;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  rect(svg, 0, 0, width, height, { fill: COLORS.bg });
  let y = title(svg, state, width) + 8;
  y = table(svg, state, y, ui);
  y = badges(svg, state, y, width);
  for (let seat = 0; seat < n; seat++) {
    const px = MARGIN + (seat % cols) * (PANEL_W + MARGIN);
    const py = y + Math.floor(seat / cols) * (panelHeight(state.rules) + MARGIN);
    panel(svg, state, seat, px, py, ui);
  }
  if (n % cols) {
    const px = MARGIN + (n % cols) * (PANEL_W + MARGIN);
    scoreTable(svg, state, px, y + Math.floor(n / cols) * (panelHeight(state.rules) + MARGIN));
  }
  legend(svg, state, height - 28, width);
}
