// The tablet's modules share one context object (made in static/table.js): the page's
// data, the snapshot shown, the outbox, the message and the picker, and the functions
// each module puts on it. These read the snapshot through it, when called.

export function reads(ctx) {
  const game = () => ctx.snapshot.game;
  const view = () => ctx.snapshot.view;
  const seatOf = (n) => view().seats[n - 1];
  return {
    game,
    view,
    seatOf,
    playerAt: (n) => (seatOf(n) || {}).player,
    // Hole cards dealt by the software stay face down until the showdown: the tablet and
    // the live view may be seen from the table.
    showHoles: () => view().phase === "showdown",
  };
}
