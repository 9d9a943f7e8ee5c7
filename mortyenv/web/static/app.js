// The page: talks to the JSON API, keeps what the player has picked, and redraws the board.
// A move is two picks, a tile then a lit cell (mouse or keyboard); the agents' replies come
// back with the move's answer and are listed and animated. The game's id and token live in
// sessionStorage, so a reload goes on with the same game.

import { drawBoard } from "./board.js";

const $ = (id) => document.getElementById(id);
const board = $("board");

const page = {
  game: null, // {id, token}
  state: null, // the last state of the game
  selected: null, // the picked source, "D2" or "R0"
  flip: 0,
  cursor: null, // {row, col} on the human's shelf
  hint: null, // {source, row, col} of a hovered hint line
  fresh: new Set(), // "seat,row,col" of tiles placed since the last state
  newMoves: 0, // how many moves at the end of the list are new
  replay: null, // {positions, step} while a record is open
  busy: false,
  agentPlayers: {}, // agent name -> the player counts it can play (GET /api/agents)
};

// ------------------------------------------------------------------ the API
async function api(method, path, body = undefined, auth = false) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth) headers.Authorization = `Bearer ${page.game.token}`;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function say(text, error = false) {
  const box = $("message");
  box.textContent = text;
  box.classList.toggle("error", error);
}

async function busy(work) {
  if (page.busy) return;
  page.busy = true;
  document.body.setAttribute("aria-busy", "true");
  render();
  try {
    await work();
  } catch (err) {
    say(err.message, true);
    if (err.status === 404 && page.game) {
      sessionStorage.removeItem("morty-game");
      page.game = null;
    }
  } finally {
    page.busy = false;
    document.body.removeAttribute("aria-busy");
    render();
  }
}

// ------------------------------------------------------------------ state changes
function show(state) {
  const old = page.state;
  page.fresh = new Set();
  if (old && old.players.length === state.players.length) {
    state.shelves.forEach((shelf, seat) => shelf.forEach((row, r) => row.forEach((t, c) => {
      if (t !== null && old.shelves[seat][r][c] === null) page.fresh.add(`${seat},${r},${c}`);
    })));
  }
  page.newMoves = old ? Math.max(0, state.moves.length - old.moves.length) : 0;
  page.state = state;
  page.selected = null;
  page.flip = 0;
  page.cursor = null;
  page.hint = null;
  $("hints").hidden = true;
  const mine = new Set(state.legal.filter((m) => m.source !== null).map((m) => m.source));
  if (mine.size === 1 && state.phase === "special") select([...mine][0]);
}

/** "Round 3: P1 starts." for every round that began after move `from` (the start player
 * moves one seat on each round, so a player may move twice in a row across a round's end). */
function roundNews(state, from, lastRound) {
  const news = [];
  state.moves.forEach((m, i) => {
    const first = i === 0 || state.moves[i - 1].round !== m.round;
    if (i >= from && first && m.round > lastRound) news.push(`Round ${m.round + 1}: P${m.seat} starts.`);
  });
  const opened = state.moves.length === 0 || state.moves[state.moves.length - 1].round !== state.round;
  if (!state.over && opened && state.round > lastRound) news.push(`Round ${state.round + 1}: P${state.to_play} starts.`);
  return news;
}

async function newGame(options) {
  await busy(async () => {
    const created = await api("POST", "/api/games", options);
    page.game = { id: created.id, token: created.token };
    sessionStorage.setItem("morty-game", JSON.stringify(page.game));
    page.state = null;
    show(created.state);
    const who = `New game: ${created.state.players.map((p, s) => `P${s} ${p}`).join(", ")}.`;
    say([who, ...roundNews(created.state, 0, -1)].join("  ·  "));
  });
}

async function play(move) {
  await busy(async () => {
    const [before, round] = [page.state.moves.length, page.state.round];
    show(await api("POST", `/api/games/${page.game.id}/moves`, { action: move.action }, true));
    const replies = page.state.moves.slice(before + 1);
    const what = replies.map((m) => `P${m.seat} ${page.state.players[m.seat]}: ${m.string}`);
    const news = roundNews(page.state, before, round);
    say([`You: ${move.string}.`, ...what, ...news].join("  ·  ") + (page.state.over ? "  ·  Game over." : ""));
  });
}

async function undo() {
  await busy(async () => {
    show(await api("POST", `/api/games/${page.game.id}/undo`, undefined, true));
    say("Took back your last move and the replies after it.");
  });
}

async function hint() {
  await busy(async () => {
    say("Thinking…");
    const result = await api("POST", `/api/games/${page.game.id}/hint`, undefined, true);
    const rows = $("hint-rows");
    rows.replaceChildren();
    const legal = new Map(page.state.legal.map((m) => [m.action, m]));
    for (const line of result.moves) {
      const row = document.createElement("tr");
      row.tabIndex = 0;
      const cells = [line.string, line.value === null ? "–" : line.value.toFixed(3), line.visits, line.prior.toFixed(2)];
      cells.forEach((value, i) => {
        const td = document.createElement("td");
        td.textContent = value;
        if (i) td.className = "num";
        row.appendChild(td);
      });
      const move = legal.get(line.action);
      const mark = () => { page.hint = move && move.source ? move : null; render(); };
      row.addEventListener("mouseenter", mark);
      row.addEventListener("focus", mark);
      row.addEventListener("click", () => pickMove(move));
      row.addEventListener("keydown", (event) => {
        if (event.key !== "Enter") return;
        event.stopPropagation();
        event.preventDefault();
        // Enter plays the line's move once it is picked (a click or a first Enter picks it)
        if (move && (move.source === null || picked(move))) play(move);
        else pickMove(move);
      });
      rows.appendChild(row);
    }
    $("hint-note").textContent = `(MCTS, ${result.iterations} rollouts, most visited first; value = your mean reward 0..1)`;
    $("hints").hidden = false;
    say("Hint: every legal move, most visited first (the search plays its most visited move). Click a line, then Enter plays it.");
  });
}

/** Whether `move` is the one picked now: its tile, its flip and the cursor on its cell. */
function picked(move) {
  return page.selected === move.source && page.flip === move.flip
    && page.cursor !== null && page.cursor.row === move.row && page.cursor.col === move.col;
}

/** A hint line picked: its tile, flip and cell become the pick, so Enter (or a click on the
 * cell) plays it. Picking never drops the tile already picked. */
function pickMove(move) {
  if (!move) return;
  if (move.source === null) { say("The search's pick is to pass: Enter on its line, or P, passes."); return; }
  page.selected = move.source;
  page.flip = move.flip;
  page.cursor = { row: move.row, col: move.col };
  say(`Picked ${move.string}: Enter plays it.`);
  render();
}

async function download() {
  await busy(async () => {
    const record = await api("GET", `/api/games/${page.game.id}/record`);
    const url = URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `morty-${page.game.id.slice(0, 8)}.json`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    say("Saved the game record; replay it here with Open record, or with `morty replay`.");
  });
}

async function openRecord(file) {
  await busy(async () => {
    let record;
    try {
      record = JSON.parse(await file.text());
    } catch {
      throw new Error(`${file.name} is not JSON`);
    }
    const replay = await api("POST", "/api/records/replay", record);
    page.replay = { positions: replay.positions, step: 0 };
    page.fresh = new Set();
    page.selected = null;
    say(`Opened ${file.name}: ${replay.positions.length - 1} moves. ← and → step through it.`);
  });
}

function step(to) {
  const replay = page.replay;
  const target = Math.max(0, Math.min(replay.positions.length - 1, to));
  const [old, next] = [replay.positions[replay.step], replay.positions[target]];
  page.fresh = new Set();
  if (target === replay.step + 1) {
    next.shelves.forEach((shelf, seat) => shelf.forEach((row, r) => row.forEach((t, c) => {
      if (t !== null && old.shelves[seat][r][c] === null) page.fresh.add(`${seat},${r},${c}`);
    })));
  }
  replay.step = target;
  render();
}

function leaveReplay() {
  page.replay = null;
  page.fresh = new Set();
  say("Back to your game.");
  render();
}

// ------------------------------------------------------------------ picking
function movesOf(source) {
  return page.state.legal.filter((m) => m.source === source);
}

function select(source) {
  const [kind, slot] = [source[0], Number(source.slice(1))];
  const holds = kind === "R" ? page.state.rack[slot] : page.state.display[slot];
  if (!holds) {
    say(`There is no tile in ${source}.`, true);
    return;
  }
  if (!movesOf(source).length) {
    say(`${source} cannot go anywhere on your shelf now.`, true);
    return;
  }
  page.selected = page.selected === source ? null : source;
  page.flip = 0;
  page.cursor = null;
  if (page.selected && !targets().size) page.flip = 1; // only flipped placements fit
  render();
}

/** The lit cells: "row,col" -> the legal move of the picked tile with the chosen flip. */
function targets() {
  const found = new Map();
  if (!page.selected) return found;
  for (const m of movesOf(page.selected)) if (m.flip === page.flip) found.set(`${m.row},${m.col}`, m);
  return found;
}

function toggleFlip() {
  if (!page.selected) { say("Pick a tile first, then F flips it.", true); return; }
  page.flip = 1 - page.flip;
  if (!targets().size) say("No cell takes the tile this way up.", true);
  render();
}

function placeAt(row, col) {
  const move = targets().get(`${row},${col}`);
  if (move) play(move);
}

function moveCursor(dr, dc) {
  const lit = [...targets().values()];
  if (!lit.length) return;
  const now = page.cursor || { row: lit[0].row, col: lit[0].col };
  if (!page.cursor) { page.cursor = now; render(); return; }
  // the nearest lit cell in the direction pressed
  const ahead = lit.filter((m) => (m.row - now.row) * dr + (m.col - now.col) * dc > 0);
  if (!ahead.length) return;
  const cost = (m) => Math.abs(m.row - now.row - dr) * 3 + Math.abs(m.col - now.col - dc) * 3
    + Math.abs((m.row - now.row) * dc) + Math.abs((m.col - now.col) * dr);
  ahead.sort((a, b) => cost(a) - cost(b));
  page.cursor = { row: ahead[0].row, col: ahead[0].col };
  render();
}

// ------------------------------------------------------------------ drawing
function render() {
  const viewing = page.replay !== null;
  const state = viewing ? page.replay.positions[page.replay.step] : page.state;
  $("replay-controls").hidden = !viewing;
  $("play-controls").hidden = viewing;
  if (!state) return;
  const lit = viewing ? new Map() : targets();
  drawBoard(board, state, {
    selected: viewing ? null : page.selected, flip: page.flip, targets: lit,
    cursor: page.cursor, hint: viewing ? null : page.hint, fresh: page.fresh,
  });
  page.fresh = new Set(); // animated once: a redraw (a hover, a pick) shows them still
  const myTurn = !viewing && state.legal.length > 0 && !page.busy;
  $("pass").disabled = !myTurn;
  $("hint").disabled = !myTurn;
  $("flip").disabled = !myTurn || !page.selected;
  $("flip").setAttribute("aria-pressed", page.flip ? "true" : "false");
  $("undo").disabled = viewing || page.busy || !state.can_undo;
  $("download").disabled = viewing || page.busy;
  let prompt;
  if (state.over) {
    prompt = "The game is over. Start a new one, save the record, or undo your last move.";
  } else if (!myTurn) {
    prompt = page.busy ? "The agents are thinking…" : "Waiting.";
  } else if (!page.selected) {
    prompt = state.phase === "special"
      ? `Special jar: pick a rack tile (0–${state.rack.length - 1}), or pass for a kitten.`
      : `Pick a display tile (0–${state.display.length - 1} or click), or pass (P) for a kitten.`;
  } else {
    const n = lit.size;
    prompt = `${page.selected}${page.flip ? " flipped" : ""}: ${n} lit cell${n === 1 ? "" : "s"}; click one or use the arrows and Enter. F flips, Esc drops it.`;
  }
  $("prompt").textContent = prompt;
  const list = $("moves");
  list.replaceChildren();
  state.moves.forEach((m, i) => {
    if (i === 0 || state.moves[i - 1].round !== m.round) { // a round begins: who starts it
      const head = document.createElement("li");
      head.className = "round";
      head.textContent = `Round ${m.round + 1} · P${m.seat} starts`;
      list.appendChild(head);
    }
    const item = document.createElement("li");
    const who = m.seat === null ? "" : `P${m.seat} ${m.seat === state.seat ? "you" : state.players[m.seat]}: `;
    item.textContent = who + m.string;
    if (m.seat !== null && m.seat === state.seat) item.classList.add("you");
    if (!viewing && i >= state.moves.length - page.newMoves) item.classList.add("new");
    if (viewing && i === page.replay.step - 1) item.classList.add("current");
    list.appendChild(item);
  });
  page.newMoves = 0;
  if (viewing) $("replay-step").textContent = `move ${page.replay.step} / ${page.replay.positions.length - 1}`;
  list.scrollTop = list.scrollHeight;
}

// ------------------------------------------------------------------ events
board.addEventListener("click", (event) => {
  if (page.replay || page.busy) return;
  const slot = event.target.closest(".slot.takeable");
  const cell = event.target.closest(".cell.target");
  if (slot) select(slot.dataset.source);
  else if (cell) placeAt(Number(cell.dataset.row), Number(cell.dataset.col));
});

board.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" && event.key !== " ") return;
  const slot = event.target.closest(".slot.takeable");
  const cell = event.target.closest(".cell.target");
  if (!slot && !cell) return;
  event.preventDefault();
  event.stopPropagation();
  if (slot) {
    const source = slot.dataset.source;
    select(source);
    board.querySelector(`.slot[data-source="${source}"]`)?.focus();
  } else {
    placeAt(Number(cell.dataset.row), Number(cell.dataset.col));
  }
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea")) return;
  const key = event.key;
  if (page.replay) {
    const replay = page.replay;
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (key in moves) {
      step(Number.isFinite(moves[key]) ? replay.step + moves[key] : moves[key] > 0 ? replay.positions.length : 0);
      event.preventDefault();
    } else if (key === "Escape") leaveReplay();
    return;
  }
  if (key === "n" || key === "N") { $("players").focus(); event.preventDefault(); return; }
  if (key === "o" || key === "O") { $("open").click(); return; }
  if (!page.state || page.busy) return;
  const state = page.state;
  if (key === "s" || key === "S") { download(); return; }
  if ((key === "u" || key === "U") && state.can_undo) { undo(); return; }
  if (!state.legal.length) return;
  const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (/^[0-9]$/.test(key)) {
    select(`${state.phase === "special" ? "R" : "D"}${key}`);
  } else if (key === "f" || key === "F") {
    toggleFlip();
  } else if (key === "p" || key === "P") {
    play(state.legal.find((m) => m.source === null));
  } else if (key === "h" || key === "H") {
    hint();
  } else if (key === "Escape") {
    page.selected = null;
    page.cursor = null;
    render();
  } else if (key in arrows) {
    moveCursor(...arrows[key]);
    event.preventDefault();
  } else if (key === "Enter" && page.cursor) {
    placeAt(page.cursor.row, page.cursor.col);
  } else {
    return;
  }
});

$("flip").addEventListener("click", toggleFlip);
$("pass").addEventListener("click", () => play(page.state.legal.find((m) => m.source === null)));
$("hint").addEventListener("click", hint);
$("undo").addEventListener("click", undo);
$("download").addEventListener("click", download);
$("open").addEventListener("change", (event) => {
  const [file] = event.target.files;
  if (file) openRecord(file);
  event.target.value = "";
});
$("first").addEventListener("click", () => step(0));
$("back").addEventListener("click", () => step(page.replay.step - 1));
$("forward").addEventListener("click", () => step(page.replay.step + 1));
$("last").addEventListener("click", () => step(page.replay.positions.length));
$("leave").addEventListener("click", leaveReplay);
/** Offer only the agents that can play the chosen player count (the learned ones have a
 * network for some counts only); the choice is kept when it still fits. */
function fillOpponents(chosen) {
  const players = Number($("players").value);
  const fit = Object.keys(page.agentPlayers).filter((a) => page.agentPlayers[a].includes(players));
  const keep = fit.includes(chosen) ? chosen : fit.includes("heuristic") ? "heuristic" : fit[0];
  $("opponents").replaceChildren(...fit.map((a) => new Option(a, a, a === keep, a === keep)));
}

$("players").addEventListener("change", () => {
  const seat = $("seat");
  seat.replaceChildren(...Array.from({ length: Number($("players").value) }, (_, i) => new Option(String(i))));
  fillOpponents($("opponents").value);
});
$("new-game").addEventListener("submit", (event) => {
  event.preventDefault();
  const options = {
    players: Number($("players").value),
    seat: Number($("seat").value),
    opponents: [$("opponents").value],
  };
  if ($("seed").value !== "") options.seed = Number($("seed").value);
  page.replay = null;
  newGame(options);
});

async function start() {
  try {
    const { agents, default: chosen, players } = await api("GET", "/api/agents");
    page.agentPlayers = Object.fromEntries(agents.map((a) => [a, players[a]]));
    fillOpponents(chosen);
  } catch (err) {
    say(err.message, true);
  }
  const saved = sessionStorage.getItem("morty-game");
  if (saved) {
    try {
      page.game = JSON.parse(saved);
      show(await api("GET", `/api/games/${page.game.id}`));
      say("Welcome back: your game goes on.");
      render();
      return;
    } catch {
      sessionStorage.removeItem("morty-game");
    }
  }
  const seed = new URLSearchParams(location.search).get("seed");
  await newGame(seed === null ? {} : { seed: Number(seed) });
}

start();
