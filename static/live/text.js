// Words the screens share.

// The engine's phases (TableGame.phase) as the screens name them.
export const PHASE = {
  between_rounds: "Between rounds", betting: "Betting", preflop: "Pre-flop", flop: "Flop",
  river: "River", showdown: "Showdown",
};

// A socket's state (live/socket.js) in the status line.
export const STATUS_TEXT = {
  connecting: "Connecting…", open: "Live", closed: "Offline: reconnecting…",
  logged_out: "Logged out: log in again",
  not_allowed: "No longer allowed here: reload the page",
};
