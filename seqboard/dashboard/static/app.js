// seqboard dashboard: draws what the referee sees, live over a WebSocket; no library, no network.
"use strict";

const COLOUR = { B: "var(--blue)", G: "var(--green)", R: "var(--red)" };
const SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const NAMES = { B: "blue", G: "green", R: "red" };
function colourName(letter) { return lookup(NAMES[letter]); }
const SVGNS = "http://www.w3.org/2000/svg";
let state = null;
let socket = null;
let retry = 500;

// --- the viewer's language: the catalogs of seqboard/i18n, served as /i18n/<lang>.json ---------
const LANGUAGES = ["en", "cs", "it", "es", "pl", "fr", "nl", "de"];
let LANG = "en";
let CATALOG = {};
const WORDS = new Map();             // English sentence -> its template and parameters
function lookup(msgid) { return (LANG !== "en" && CATALOG[msgid]) || msgid; }
function _(msgid) { return lookup(msgid); }      // _("...") marks a message for the catalogs
function fmt(template, params) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (params[k] === undefined ? m : String(params[k])));
}
function renderWords(w) {
  if (w.t !== undefined) return w.t;
  if (w.j !== undefined) return w.l.map(renderWords).join(w.j.trim() ? lookup(w.j) : w.j);
  const p = {};
  for (const k in w.p) p[k] = typeof w.p[k] === "string" ? w.p[k] : renderWords(w.p[k]);
  return fmt(lookup(w.m), p);
}
// a sentence of the game (English from the Pi) in the viewer's language
function T(text) {
  if (LANG === "en" || !text) return text;
  const w = WORDS.get(text);
  return w ? renderWords(w) : text;
}
function learnWords(words) {
  if (WORDS.size > 4000) WORDS.clear();
  for (const k in words || {}) WORDS.set(k, words[k]);
}
function pickLanguage(configured) {
  const asked = new URLSearchParams(location.search).get("lang");
  const wanted = [asked, configured, ...(navigator.languages || [navigator.language])];
  for (const w of wanted) {
    const base = (w || "").toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}
function translatePage() {
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = lookup(e.dataset.i18n);
  for (const a of ["title", "placeholder", "aria-label", "alt"]) {
    for (const e of document.querySelectorAll(`[data-i18n-${a}]`)) e.setAttribute(a, lookup(e.dataset["i18n" + a[0].toUpperCase() + a.slice(1).replace("-l", "L")]));
  }
}
let languageAsked = null;
let unsaid = [];                  // what came to be said while the language was loading
async function useLanguage(configured) {
  const lang = pickLanguage(configured);
  if (lang === languageAsked) return;
  languageAsked = lang;
  let catalog = {};
  if (lang !== "en") {
    try {
      catalog = (await (await fetch("/i18n/" + lang + ".json")).json()).messages || {};
      learnWords((await (await fetch("/api/words", { cache: "no-store" })).json()).words);
    } catch (e) { /* offline: English until the next try */ }
  }
  if (languageAsked !== lang) return;      // another language was asked meanwhile
  CATALOG = catalog;
  LANG = lang;
  document.documentElement.lang = lang;
  document.body.dataset.language = lang;
  translatePage();
  setStatus(null, null);
  if (state) render(state);
  for (const text of unsaid.splice(0)) say(spoken(text));
}

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function hel(tag, attrs, parent) {            // an HTML element (el makes SVG ones)
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function cardLabel(code) {
  if (code.length === 2 && SUIT[code[1]]) return [code[0] === "T" ? "10" : code[0], SUIT[code[1]], "HD".includes(code[1])];
  return [code.slice(0, 4), "", false];
}

// Draw a board: symbols, chips (team index or null per space), sequences outlined in the
// team's colour, a-j / 1-10 on the edges, dead cards' spaces, hints, warnings, the Pi's move.
function drawBoard(svg, b) {
  svg.innerHTML = "";
  const m = 0.45;                       // the margin that holds the coordinates
  svg.setAttribute("viewBox", `${-m} ${-m} ${b.cols + 2 * m} ${b.rows + 2 * m}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMin meet");     // up against the banner
  // the board's own background: the svg may be taller or wider than the board it holds
  el("rect", { class: "felt", x: -m, y: -m, width: b.cols + 2 * m, height: b.rows + 2 * m, rx: 0.15 }, svg);
  const defs = el("defs", {}, svg);
  const pat = el("pattern", { id: svg.id + "-hatch", width: 0.2, height: 0.2, patternUnits: "userSpaceOnUse",
                             patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 0.2, height: 0.2, fill: "#ddd" }, pat);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 0.2, stroke: "#777", "stroke-width": 0.08 }, pat);
  for (let c = 0; c < b.cols; c++) {
    const letter = String.fromCharCode(97 + c);
    for (const [y, side] of [[-m / 2, "top"], [b.rows + m / 2, "bottom"]]) {
      el("text", { class: "coord", x: c + 0.5, y, "data-coord": letter, "data-side": side }, svg).textContent = letter;
    }
  }
  for (let r = 0; r < b.rows; r++) {
    for (const [x, side] of [[-m / 2, "left"], [b.cols + m / 2, "right"]]) {
      el("text", { class: "coord", x, y: r + 0.5, "data-coord": String(r + 1), "data-side": side }, svg).textContent = r + 1;
    }
  }
  const dead = new Set(b.dead || []);
  for (let i = 0; i < b.rows * b.cols; i++) {
    const r = Math.floor(i / b.cols), c = i % b.cols;
    const free = b.cells[i] === "free";
    const unknown = b.observed && b.observed[i] === "?";
    const g = el("g", { class: "cell" + (free ? " free" : "") + (unknown ? " unknown" : ""),
                       transform: `translate(${c},${r})`, "data-space": i }, svg);
    const bg = el("rect", { class: "bg", x: 0.03, y: 0.03, width: 0.94, height: 0.94, rx: 0.06 }, g);
    if (unknown) bg.setAttribute("fill", `url(#${svg.id}-hatch)`);
    const [rank, suit, red] = cardLabel(b.symbols[i] || "");
    const t = el("text", { class: "code" + (red ? " r" : ""), x: 0.5, y: 0.3 }, g);
    t.textContent = free ? "\u2605" : rank + suit;
    const team = b.cells[i];
    let chip = "";
    if (team !== null && team !== undefined && team !== "free") {
      chip = b.colours[team];
      // a chip keeps its team's colour, flipped or not: a sequence is shown by its outline
      const cg = el("g", { class: "chip " + chip }, g);
      el("circle", { cx: 0.5, cy: 0.6, r: 0.3, fill: COLOUR[chip] }, cg);
      const lt = el("text", { x: 0.5, y: 0.6 }, cg);
      lt.textContent = chip;          // the letter: readable without telling colours apart
    }
    g.setAttribute("data-chip", chip);
    if (unknown) g.setAttribute("data-unknown", "1");
    if (!free && dead.has(b.symbols[i])) {
      g.setAttribute("data-dead", "1");
      el("rect", { class: "dead", x: 0.06, y: 0.06, width: 0.88, height: 0.88, rx: 0.06 }, g);
      el("text", { class: "dead-mark", x: 0.84, y: 0.22 }, g).textContent = "\u2715";
    }
  }
  (b.sequence_spaces || []).forEach((spaces, team) => {
    for (const i of spaces) {
      el("rect", { class: "seq", x: i % b.cols + 0.04, y: Math.floor(i / b.cols) + 0.04, width: 0.92, height: 0.92,
                   rx: 0.08, stroke: COLOUR[b.colours[team]], "data-seq": team, "data-space": i }, svg);
    }
  });
  (b.hints || []).forEach((h, k) => {
    if (h.space === null || h.space === undefined) return;
    const x = h.space % b.cols, y = Math.floor(h.space / b.cols);
    const hg = el("g", { class: "hint", "data-hint": k + 1, "data-space": h.space,
                        transform: `translate(${x},${y})` }, svg);
    el("rect", { x: 0.1, y: 0.1, width: 0.8, height: 0.8, rx: 0.1 }, hg);
    el("text", { x: 0.2, y: 0.28 }, hg).textContent = k + 1;
  });
  for (const i of (b.waiting || [])) {      // the spaces the referee's waiting notice names
    el("rect", { class: "wait", "data-space": i, x: i % b.cols + 0.04, y: Math.floor(i / b.cols) + 0.04, width: 0.92, height: 0.92 }, svg);
  }
  for (const i of (b.warning || [])) {
    el("rect", { class: "warn", x: i % b.cols + 0.08, y: Math.floor(i / b.cols) + 0.08, width: 0.84, height: 0.84 }, svg);
  }
  if (b.proposal !== null && b.proposal !== undefined) {
    const i = b.proposal;
    el("rect", { class: "prop", x: i % b.cols + 0.1, y: Math.floor(i / b.cols) + 0.1, width: 0.8, height: 0.8 }, svg);
  }
}

// --- sound (Web Audio beeps, no files) and the voice (the browser's speech) ---------------
window.seqboardSounds = [];          // what was sounded, for a person or a test to check
window.seqboardSaid = [];
let audio = null;
const TONES = { illegal: [[440, 0.18], [311, 0.3]], sequence: [[523, 0.12], [659, 0.12], [784, 0.12], [1047, 0.3]] };
function toggle(id) {
  const box = document.getElementById(id);
  return box ? box.checked : false;
}
function remember(id, dflt) {
  const box = document.getElementById(id);
  const saved = localStorage.getItem("seqboard-" + id);
  box.checked = saved === null ? dflt : saved === "1";
  box.dataset.chosen = saved === null ? "" : "1";
  box.addEventListener("change", () => {
    localStorage.setItem("seqboard-" + id, box.checked ? "1" : "0");
    box.dataset.chosen = "1";
    if (box.checked && id === "sound-on") startAudio();   // a click lets the page sound
  });
}
function startAudio() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume();
  } catch (e) { audio = null; }
  return audio;
}
function beep(kind) {
  if (!toggle("sound-on")) return;
  const ctx = startAudio();
  window.seqboardSounds.push({ kind, audio: ctx ? ctx.state : "none" });
  if (!ctx) return;
  let t = ctx.currentTime + 0.02;
  for (const [freq, dur] of TONES[kind]) {
    const o = ctx.createOscillator(), g = ctx.createGain();
    o.type = kind === "illegal" ? "square" : "sine";
    o.frequency.value = freq;
    g.gain.setValueAtTime(0.25, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + dur);
    o.connect(g); g.connect(ctx.destination);
    o.start(t); o.stop(t + dur);
    t += dur;
  }
}
function say(text) {
  if (!toggle("voice-on") || !text) return;
  window.seqboardSaid.push(text);
  if (!("speechSynthesis" in window)) return;
  try {
    const u = new SpeechSynthesisUtterance(text);
    u.lang = document.documentElement.lang || "en";
    window.speechSynthesis.speak(u);
  } catch (e) { /* no speech engine: the page goes on silently */ }
}
const RANK_WORDS = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", 10: "ten", 9: "nine", 8: "eight",
                     7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two" };
const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
function spoken(text) {
  // as the Pi's voice says it (seqboard/indicators/voice.py): card codes as card names
  if (LANG !== "en") {
    return T(text || "").replace(/\b(10|[AKQJT2-9])([SHDC])\b/g,
      (m, r, s) => fmt(_("{rank} of {suit}"), { rank: lookup(RANK_WORDS[r]), suit: lookup(SUIT_WORDS[s]) }))
      .replace(/;/g, ",").replace(/[()]/g, "");
  }
  return (text || "").replace(/\b(10|[AKQJT2-9])([SHDC])\b/g, (_, r, s) => `${RANK_WORDS[r]} of ${SUIT_WORDS[s]}`)
    .replace(/\(computer\) /g, "").replace(/;/g, ",").replace(/[()]/g, "");
}

function show(id, on) { document.getElementById(id).hidden = !on; }

function renderStacks(msg) {
  const v = msg.stacks;
  show("board-box", false); show("side", false); show("stacks-box", true);
  // STACKS is played by typing at the Pi: the page only watches, so no PIN box
  show("login", false);
  document.getElementById("title").textContent = "\u2014 SEQUENCE STACKS";
  const rb = (c) => lookup(c === "R" ? "red" : "blue");
  document.getElementById("stacks-turn").textContent = v.over ? fmt(_("Game over: {result}"), { result: T(v.result) })
    : fmt(_("player {n} to play ({direction})"), { n: v.current + 1, direction: lookup(v.direction) }) +
      (v.pending ? " \u2014 " + fmt(_("a {colour} SEQUENCE waits for its chip: Block?"), { colour: rb(v.pending.colour) }) : "");
  const piles = document.getElementById("piles");
  piles.innerHTML = "";
  v.piles.forEach((p, i) => {
    const d = document.createElement("div");
    d.className = "pile " + p.colour;
    d.setAttribute("data-pile", i + 1);
    const head = document.createElement("div");
    head.textContent = fmt(_("pile {n}: {colour}"), { n: i + 1, colour: rb(p.colour) });
    d.appendChild(head);
    const c = document.createElement("div");
    c.className = "cards";
    c.textContent = p.cards.map((x) => x[1] === "W" ? "*" : x[1]).join(" ");
    d.appendChild(c);
    piles.appendChild(d);
  });
  if (!v.piles.length) piles.textContent = _("no pile yet");
  const body = document.querySelector("#stacks-players tbody");
  body.innerHTML = "";
  for (let p = 0; p < v.players; p++) {
    const tr = document.createElement("tr");
    const pi = (msg.seats || [])[p] && msg.seats[p] !== "person";
    tr.className = (p === v.current && !v.over ? "current" : "") + (pi ? " pi" : "");
    if (pi) tr.dataset.pi = msg.seats[p];
    const ch = v.chips[p];
    const player = fmt(_("player {n}"), { n: p + 1 });
    const seat = pi ? fmt(_("the Pi ({level})"), { level: msg.seats[p] }) : "";
    const chips = fmt(_("{b} blue (B), {r} red (R)"), { b: ch.B, r: ch.R });
    tr.innerHTML = `<td>${player}${pi ? ` <span class="pi-seat">${seat}</span>` : ""}</td>` +
                   `<td data-chips="${ch.B},${ch.R}">${chips}</td>` +
                   `<td>${v.discard_tops[p] || "\u2013"}</td><td>${v.hand_sizes[p]}</td>`;
    body.appendChild(tr);
  }
  document.getElementById("stacks-counts").textContent = fmt(_("deck {deck}, out of play {out}"), { deck: v.deck, out: v.out_of_play });
  const log = document.getElementById("stacks-log");
  log.innerHTML = "";
  for (const line of (msg.log || []).slice().reverse()) {
    const li = document.createElement("li");
    li.textContent = T(line);
    log.appendChild(li);
  }
}

function renderCalibration(msg) {
  show("board-box", false); show("side", false); show("calibrate-box", true);
  document.getElementById("title").textContent = "\u2014 " + _("calibration");
  const c = msg.calibration || {};
  if (msg.camera && !cameraStarted) { cameraStarted = true; camera(); }   // the live picture
  const m = document.getElementById("cal-msg");
  const bar = document.getElementById("cal-progress");
  bar.hidden = c.step !== "capturing";
  if (c.step === "capturing") {
    bar.max = c.of; bar.value = c.frame;
    m.textContent = fmt(_("capturing frame {frame} of {total}\u2026"), { frame: c.frame, total: c.of });
  } else if (c.step === "capture") {
    m.textContent = c.ok ? fmt(_("Board found ({method}). Check the picture, then save."), { method: c.method })
      : fmt(_("Cannot calibrate: {problem}"), { problem: c.problem });
    const img = document.getElementById("cal-picture");
    img.hidden = !c.ok;
    if (c.ok) img.src = "/calibration.jpg?t=" + msg.seq;
  } else if (c.step === "save") {
    m.textContent = c.ok ? fmt(_("Saved {path}"), { path: c.path }) : fmt(_("Not saved: {problem}"), { problem: c.problem });
  } else if (c.step === "pile") {
    document.getElementById("cal-pile-msg").textContent = c.ok
      ? fmt(_("Seat {seat}'s pile found: a card {px} pixels long"), { seat: c.seat, px: Math.round(c.card_px) })
      : fmt(_("Pile not found: {problem}"), { problem: c.problem });
    if (c.ok) document.getElementById("cal-picture").src = "/calibration.jpg?t=" + msg.seq;
  } else if (c.step === "word") {
    document.getElementById("cal-word-msg").textContent = c.ok
      ? fmt(_("The {word} card kept"), { word: c.word })
      : fmt(_("Card not kept: {problem}"), { problem: c.problem });
  }
  if (c.step === "capture") {
    document.getElementById("cal-piles").hidden = !c.ok;
    document.getElementById("cal-words").hidden = !(c.ok && c.word_cards);
  }
  const w = document.getElementById("cal-warnings");
  w.innerHTML = "";
  for (const t of (c.warnings || [])) {
    const li = document.createElement("li");
    li.textContent = "\u26a0 " + t;
    w.appendChild(li);
  }
}

function render(msg) {
  if (msg.mode === "stacks") { state = msg; renderStacks(msg); return; }
  if (msg.mode === "calibrate") { state = msg; renderCalibration(msg); return; }
  if (msg.mode === "setup") { state = msg; renderSetup(msg); return; }
  const v = msg.view;
  if (!v || !v.cells) return;
  state = msg;
  showRemote(v);
  document.getElementById("title").textContent = `\u2014 ${v.title} (${v.mode})`;
  drawBoard(document.getElementById("board"), {
    rows: v.rows, cols: v.cols, symbols: v.symbols, cells: v.cells, colours: v.colours,
    observed: msg.observed, sequence_spaces: v.sequence_spaces, dead: v.dead_cards,
    hints: myHints && myHints.move_number === v.move_number ? myHints.hints : [],
    warning: v.warning ? v.warning.spaces : [], proposal: v.proposal ? v.proposal.space : null,
    waiting: v.stall ? v.stall.spaces : [],
  });
  const board = document.getElementById("board");
  board.setAttribute("data-move", v.move_number);
  const turn = document.getElementById("turn");
  const team = v.over ? v.winner : v.to_move.team;
  const letter = team === null || team === undefined ? null : v.colours[team];
  turn.innerHTML = "";
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = v.over
    ? (v.winner !== null ? fmt(_("Game over: {team} wins"), { team: colourName(v.colours[v.winner]) }) : _("Game over"))
    : fmt(_("{team} to play"), { team: colourName(letter) });
  const detail = document.createElement("span");
  detail.className = "detail";
  detail.textContent = v.over ? fmt(_("after {n} moves"), { n: v.move_number })
    : fmt(_("player {player} \u00b7 move {n}"), { player: v.to_move.player + 1, n: v.move_number + 1 });
  turn.append(who, " ", detail);
  turn.className = "banner" + (v.over ? " over" : "") + (letter ? " team-" + letter : "");
  turn.dataset.team = letter || "";
  if (letter) turn.style.setProperty("--team", COLOUR[letter]); else turn.style.removeProperty("--team");
  const seq = document.getElementById("sequences");
  seq.innerHTML = "";
  v.sequences.forEach((n, t) => {
    const li = document.createElement("li");
    li.textContent = fmt(_("{team} ({letter}): {n} of {need}"), { team: colourName(v.colours[t]), letter: v.colours[t], n, need: v.to_win });
    seq.appendChild(li);
  });
  const dead = document.getElementById("dead");
  dead.innerHTML = "";
  for (const code of v.dead_cards) {
    const [rank, suit] = cardLabel(code);
    const img = document.createElement("img");
    img.className = "card-face";
    img.src = "/cards/" + encodeURIComponent(code) + ".png";
    img.alt = rank + suit;
    img.title = fmt(_("{card}: both spaces taken"), { card: rank + suit });
    img.dataset.card = code;
    dead.appendChild(img);
  }
  if (!v.dead_cards.length) dead.textContent = _("none");
  // the referee has waited long on spaces it cannot read: what it says, and the button of t
  const stall = document.getElementById("stall");
  stall.hidden = !v.stall;
  stall.dataset.spaces = v.stall ? v.stall.names.join(" ") : "";
  document.getElementById("stall-text").textContent = v.stall ? T(v.stall.text) : "";
  if (!v.stall) document.getElementById("stall-msg").textContent = "";
  const w = document.getElementById("warning");
  w.hidden = !v.warning;
  w.textContent = v.warning ? "\u26a0 " + T(v.warning.text) : "";
  const p = document.getElementById("problem");
  p.hidden = !v.source_problem;
  p.textContent = v.source_problem ? fmt(_("Sensing: {problem}"), { problem: T(v.source_problem) }) : "";
  const pr = document.getElementById("proposal");
  pr.hidden = !v.proposal;
  if (v.proposal) {
    const where = v.proposal.space === null ? "" : spaceName(v.proposal.space, v.cols);
    const what = fmt(v.proposal.action === "remove" ? _("The Pi removes the chip on {space} with {card}")
      : _("The Pi plays on {space} {card}"), { space: where, card: v.proposal.card || "" });
    const why = (v.proposal.reason || "").trim();
    pr.textContent = what + (why ? `: ${T(why)}` : "");
  } else pr.textContent = "";
  showHints(v.move_number);
  showFive(v);
  const log = document.getElementById("log");
  log.innerHTML = "";
  for (const line of v.log.slice().reverse()) {
    const li = document.createElement("li");
    li.className = line.kind;
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = line.n;
    const t = document.createElement("span");
    t.className = "text";
    t.textContent = T(line.text);
    li.append(n, t);
    log.appendChild(li);
  }
  if (msg.camera && !cameraStarted) { cameraStarted = true; camera(); }
  const ev = msg.event || {};
  if (msg.seq !== lastSeq && lastSeq !== null) {        // a new event, not the page's first look
    if (ev.kind === "warning") beep("illegal");
    if (ev.new_sequences) beep("sequence");
    if (["verdict", "warning", "proposal", "game_over", "undo"].includes(ev.kind) || (ev.kind === "waiting" && ev.stall)) {
      // said in the viewer's language: while its catalogue is still loading, kept until it is
      if (languageAsked !== null && languageAsked !== LANG) unsaid.push(ev.text);
      else say(spoken(ev.text));
    }
  }
  lastSeq = msg.seq;
}
let lastSeq = null;
let cameraStarted = false;

let statusMsg = null;
function setStatus(msgid, cls) {
  const status = document.getElementById("status");
  if (msgid) statusMsg = msgid;
  if (cls) status.className = cls;
  if (statusMsg) status.textContent = lookup(statusMsg);
}
// the words marked for the catalogs where they are used: setStatus("live") and friends
void [_("live"), _("reconnecting\u2026"), _("clockwise"), _("counterclockwise")];

function connect() {
  const status = document.getElementById("status");
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  socket.onopen = () => { retry = 500; setStatus("live", "status on"); };
  socket.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    learnWords(msg.words);
    if (msg.language !== undefined) useLanguage(msg.language);
    if (msg.voice !== undefined) {                // ui.voice, unless this viewer chose
      const box = document.getElementById("voice-on");
      if (!box.dataset.chosen) box.checked = !!msg.voice;
    }
    if (msg.type === "state") render(msg);
  };
  socket.onclose = () => {
    setStatus("reconnecting\u2026", "status off");
    setTimeout(connect, retry);          // the app restarted, or the network blinked
    retry = Math.min(retry * 2, 5000);
  };
}

// hints come only in the answer to this browser's own request (never in the shared state),
// and hold until the next move
let myHints = null;
function showHints(moveNumber) {
  if (myHints && moveNumber !== undefined && moveNumber !== myHints.move_number) myHints = null;
  const hints = document.getElementById("hints");
  hints.innerHTML = "";
  for (const h of (myHints && myHints.hints) || []) {
    const li = document.createElement("li");
    const chance = h.chance === null || h.chance === undefined ? "" : fmt(_(" ({pct} % to win)"), { pct: Math.round(100 * h.chance) });
    li.textContent = `${T(h.move)}: ${T(h.reason)}${chance}`;
    hints.appendChild(li);
  }
}

async function post(path, body) {
  const r = await fetch(path, { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Seqboard": "1" }, body: JSON.stringify(body) });
  let data = {};
  try { data = await r.json(); } catch (e) { /* not JSON */ }
  return [r.ok, data];
}

let unlocked = false;
function unlock(on) {
  unlocked = on;
  for (const b of document.querySelectorAll("#controls button, #stall button, #calibrate-box button, #hint-form button, #five-choices button, #setup-form button, #card-form button, #remote-form button")) b.disabled = !on;
}

// a sequence just made on a longer line: its team may name the five (as `f c4-g4` does)
function showFive(v) {
  const box = document.getElementById("five-box");
  const choices = v.five_choices || [];
  box.hidden = choices.length === 0;
  const div = document.getElementById("five-choices");
  const key = JSON.stringify(choices);
  if (div.dataset.key === key) return;
  div.dataset.key = key;
  div.innerHTML = "";
  for (const c of choices) {
    const b = hel("button", { type: "button", "aria-pressed": c.chosen ? "true" : "false" }, div);
    b.textContent = c.text + (c.chosen ? " \u2713" : "");
    b.disabled = !unlocked;
    b.addEventListener("click", async () => {
      const [ok, data] = await post("/api/action", { action: "five", five: c.text });
      document.getElementById("five-msg").textContent = ok ? data.text : (data.error || "refused");
      if (!ok && data.error && data.error.includes("PIN")) unlock(false);
    });
  }
}

// seqboard setup: the guide's steps, the camera to aim by, and the page's address as a QR code
function renderSetup(msg) {
  show("board-box", false); show("side", false); show("records-box", false); show("setup-box", true);
  document.getElementById("title").textContent = "\u2014 " + _("setup");
  const s = msg.setup || {};
  const ol = document.getElementById("setup-steps");
  ol.innerHTML = "";
  for (const step of s.steps || []) {
    const li = hel("li", {}, ol);
    const done = (s.done || []).includes(step);
    li.textContent = (done ? "\u2713 " : "") + step;
    if (step === s.current) li.setAttribute("aria-current", "step");
    li.className = done ? "done" : (step === s.current ? "current" : "");
  }
  const cap = document.getElementById("setup-progress");
  cap.hidden = !s.capturing;
  if (s.capturing) { cap.max = s.capturing[1]; cap.value = s.capturing[0]; }
  if (msg.camera && !cameraStarted) { cameraStarted = true; camera(); }
  const qr = document.getElementById("setup-qr");
  qr.hidden = !s.qr;
  if (s.qr && !qr.src.includes("t=" + msg.seq)) qr.src = "/qr.svg?t=" + msg.seq;
  document.getElementById("setup-url").textContent = s.url ? fmt(_("Open on a phone: {url}"), { url: s.url }) : "";
  // the question waiting for an answer: options as buttons, or a text box (empty: the default)
  const q = s.question;
  const form = document.getElementById("setup-form");
  form.hidden = !q;
  if (!q) return;
  const key = JSON.stringify(q) + msg.seq;
  if (form.dataset.key === key) return;
  form.dataset.key = key;
  document.getElementById("setup-question").textContent = q.text;
  const input = document.getElementById("setup-answer");
  input.value = "";
  input.placeholder = q.default ? fmt(_("Enter: {answer}"), { answer: q.default }) : "";
  const opts = document.getElementById("setup-options");
  opts.innerHTML = "";
  for (const o of q.options || []) {
    const b = hel("button", { type: "button", "data-answer": o }, opts);
    b.textContent = o + (o === q.default ? " " + _("(default)") : "");
    b.disabled = !unlocked;
    b.addEventListener("click", () => answerSetup(o));
  }
  const prob = document.getElementById("setup-problem");
  prob.hidden = !q.problem;
  prob.textContent = q.problem || "";
}

async function answerSetup(text) {
  const [ok, data] = await post("/api/setup/answer", { answer: text });
  if (!ok) {
    const prob = document.getElementById("setup-problem");
    prob.hidden = false;
    prob.textContent = data.error || "refused";
    if (data.error && data.error.includes("PIN")) unlock(false);
  }
}

document.getElementById("setup-form").addEventListener("submit", (e) => {
  e.preventDefault();
  answerSetup(document.getElementById("setup-answer").value);
});

function spaceName(i, cols) {
  return String.fromCharCode(97 + (i % cols)) + (Math.floor(i / cols) + 1);
}

document.getElementById("hint-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  document.getElementById("hint-msg").textContent = _("thinking…");
  const [ok, data] = await post("/api/action", { action: "hint", cards: document.getElementById("hint-cards").value });
  document.getElementById("hint-msg").textContent = ok ? "" : (data.error || _("refused"));
  if (ok) {
    learnWords(data.words);
    myHints = data; showHints();
    if (state && state.view) render(state);                  // the hints marked on the board
    const best = (data.hints || [])[0];
    if (best) say(LANG === "en" ? spoken(`hint: ${best.move}, ${best.reason}`)
      : spoken(fmt(_("hint: {play}, {reason}"), { play: T(best.move), reason: T(best.reason) })));
  }
  if (!ok && data.error && data.error.includes("PIN")) unlock(false);
});

// the card the player to move laid, tapped or typed here (judging with cards, docs/cards.md)
document.getElementById("card-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const [ok, data] = await post("/api/action", { action: "card", card: document.getElementById("card-code").value });
  document.getElementById("card-msg").textContent = ok ? "" : (data.error || "refused");
  if (ok) document.getElementById("card-code").value = "";
  if (!ok && data.error && data.error.includes("PIN")) unlock(false);
});

for (const step of ["capture", "save"]) {
  document.getElementById("cal-" + step).addEventListener("click", async () => {
    document.getElementById("cal-msg").textContent = step === "capture" ? _("capturing\u2026") : _("saving\u2026");
    const [ok, data] = await post("/api/calibrate/" + step, {});
    if (!ok && data.error) document.getElementById("cal-msg").textContent = data.error;
  });
}

// a seat's discard pile: click on the card laid there in the captured picture
document.getElementById("cal-picture").addEventListener("click", async (e) => {
  if (document.getElementById("cal-piles").hidden) return;
  const img = e.currentTarget;
  const x = e.offsetX * img.naturalWidth / img.clientWidth;
  const y = e.offsetY * img.naturalHeight / img.clientHeight;
  const seatBox = document.getElementById("cal-pile-seat");
  const msg = document.getElementById("cal-pile-msg");
  msg.textContent = _("finding the card\u2026");
  const [ok, data] = await post("/api/calibrate/pile",
    { seat: String(seatBox.value), x: x.toFixed(1), y: y.toFixed(1) });
  if (ok) seatBox.value = String(Math.min(12, Number(seatBox.value) + 1));
  else if (data.error) msg.textContent = data.error;
});

// the Jewish Edition's ADD and REMOVE cards: each laid in view, then kept
for (const id of ["cal-word-add", "cal-word-remove"]) {
  document.getElementById(id).addEventListener("click", async (e) => {
    const msg = document.getElementById("cal-word-msg");
    msg.textContent = _("finding the card\u2026");
    const [ok, data] = await post("/api/calibrate/word", { word: e.currentTarget.dataset.word });
    if (!ok && data.error) msg.textContent = data.error;
  });
}

// remote play from the page: the join code comes back to this browser only (the PIN holder)
async function remote(body) {
  const msg = document.getElementById("remote-msg");
  msg.textContent = "asking the broker\u2026";
  const [ok, data] = await post("/api/action", body);
  msg.textContent = ok ? data.text : (data.error || "refused");
  if (ok && data.code) msg.dataset.code = data.code;
  if (!ok && data.error && data.error.includes("PIN")) unlock(false);
}
document.getElementById("remote-create").addEventListener("click", () => remote({ action: "remote_create" }));
document.getElementById("remote-form").addEventListener("submit", (e) => {
  e.preventDefault();
  remote({ action: "remote_join", code: document.getElementById("remote-code").value });
});
function showRemote(view) {
  const box = document.getElementById("remote-state");
  const r = view && view.remote;
  const undo = r && r.undo;
  box.hidden = !undo;
  if (!undo) return;
  box.textContent = undo.mine ? `undo of ${undo.text} asked: waiting for the other board`
    : undo.agreed ? `undo of ${undo.text} agreed here: waiting for board ${undo.by}`
    : `board ${undo.by} asks to undo ${undo.text}: Undo to agree, or Refuse the undo`;
}

document.getElementById("login").addEventListener("submit", async (e) => {
  e.preventDefault();
  const [ok, data] = await post("/api/login", { pin: document.getElementById("pin").value });
  document.getElementById("login-msg").textContent = ok ? _("unlocked") : (data.error || _("refused"));
  unlock(ok);
});

for (const b of document.querySelectorAll("#controls button, #stall button")) {
  b.addEventListener("click", async () => {
    const [ok, data] = await post("/api/action", { action: b.dataset.action });
    document.getElementById(b.closest("#stall") ? "stall-msg" : "action-msg").textContent = ok ? "" : (data.error || _("refused"));
    if (!ok && data.error && data.error.includes("PIN")) unlock(false);
  });
}

// the camera: a few frames a second at most, only while the page is visible
async function camera() {
  const box = document.getElementById("camera-box");
  if (!document.hidden) {
    try {
      const r = await fetch("/camera.jpg", { cache: "no-store" });
      if (r.ok) {
        const url = URL.createObjectURL(await r.blob());
        const img = document.getElementById("camera");
        const old = img.src;
        img.src = url;
        if (old.startsWith("blob:")) URL.revokeObjectURL(old);
        box.hidden = false;
      } else if (r.status === 404 && (await r.json()).error === "no camera in this mode") {
        box.hidden = true;
        cameraStarted = false;            // setup and calibration start it again
        return;                           // no camera: stop asking (setup asks again)
      }
    } catch (e) { /* offline: try again */ }
  }
  setTimeout(camera, 500);
}

async function records() {
  try {
    const r = await fetch("/api/records");
    const data = await r.json();
    const ul = document.getElementById("records");
    ul.innerHTML = "";
    for (const rec of data.records) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "/records/" + encodeURIComponent(rec.name);
      a.textContent = rec.name;
      a.setAttribute("download", rec.name);
      const b = document.createElement("button");
      b.textContent = _("replay");
      b.addEventListener("click", () => replay(rec.name));
      li.append(a, " ", b);
      ul.appendChild(li);
    }
  } catch (e) { /* offline */ }
}

async function replay(name) {
  const r = await fetch("/api/records/" + encodeURIComponent(name) + "/replay");
  const data = await r.json();
  const box = document.getElementById("replay");
  box.hidden = false;
  document.getElementById("replay-name").textContent = name + (data.result ? ": " + data.result : "");
  const steps = data.steps || [];
  const slider = document.getElementById("replay-step");
  slider.max = Math.max(0, steps.length - 1);
  const show = (k) => {
    slider.value = k;
    const s = steps[k];
    if (!s) return;
    document.getElementById("replay-text").textContent =
      `${k + 1}/${steps.length} ${s.ok === false ? "BAD " : ""}${s.text}`;
    if (data.game === "board" && s.cells) {
      const cells = s.cells.map((c, i) => (data.free.includes(i) ? "free" : (c > 0 ? c - 1 : null)));
      drawBoard(document.getElementById("replay-board"),
                { rows: data.rows, cols: data.cols, symbols: data.symbols, cells, colours: data.colours });
    }
  };
  slider.oninput = () => show(Number(slider.value));
  document.getElementById("replay-prev").onclick = () => show(Math.max(0, Number(slider.value) - 1));
  document.getElementById("replay-next").onclick = () => show(Math.min(steps.length - 1, Number(slider.value) + 1));
  show(0);
}

if (new URLSearchParams(location.search).get("view") === "table") {
  document.body.classList.add("table");
  const a = document.getElementById("view-link");
  a.href = location.pathname; a.dataset.i18n = "full view"; a.textContent = _("full view");
}
remember("sound-on", true);
remember("voice-on", false);
document.getElementById("address").textContent = location.host;
useLanguage(null);
connect();
records();
setInterval(records, 15000);
