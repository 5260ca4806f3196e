// The floor's relief panel, as data (static/floor.js draws it): the next pushes, who is
// late, the last hand-overs, from the server's board (tables/relief.py board_message,
// sent with every full floor and whenever a plan or a take-over changes it). No DOM here,
// so it is unit-tested in Node (tests/js/floor_relief.test.js).

// A screen asks for the board again this long after the moment it changes by the clock
// alone, so the server, whose clock may lag the screen's a little, sees it changed.
export const ASK_MARGIN_MS = 1000;

const minutesSince = (iso, nowMs) => Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 60000));

// board: {planned, next: [{time, moves: [{dealer, to}]}], late: [{dealer, table, at, time}],
// handovers: [{time, incoming, outgoing, table, after_round}]} -> the panel's lines, in
// the words of the page the server draws (templates/tables/_relief_board.html). The
// minutes a dealer is late are counted from `at` at `nowMs`, so they tick between boards.
export function reliefLines(board, nowMs) {
  return {
    planned: Boolean(board.planned),
    next: board.next.map((push) => `${push.time} ${push.moves.map((m) => `${m.dealer} → ${m.to}`).join(", ")}`),
    late: board.late.map((late) => `Late: ${late.dealer} → ${late.table} (push ${late.time}, ${minutesSince(late.at, nowMs)} min ago)`),
    handovers: board.handovers.map((h) =>
      `${h.time} ${h.incoming} took over ${h.table}${h.outgoing ? ` from ${h.outgoing}` : ""} after round ${h.after_round}`),
  };
}

// How long until the screen asks for the board again (ms): just after `changes_at`, the
// next moment a push time passes or a dealer turns late; null when nothing is due.
export function askAgainIn(board, nowMs) {
  if (!board.changes_at) return null;
  return Math.max(0, Date.parse(board.changes_at) - nowMs) + ASK_MARGIN_MS;
}
