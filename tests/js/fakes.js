// Stand-ins for what the browser gives the modules (storage, timers, a websocket), so the
// unit tests drive them step by step in Node.

// localStorage's methods over a Map.
export function memoryStorage(initial = {}) {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => { items.set(key, String(value)); },
    removeItem: (key) => { items.delete(key); },
    items,
  };
}

// Timers that run only when the test says: `pending` lists what waits and for how long.
export function manualTimers() {
  let next = 1;
  const pending = new Map();
  return {
    setTimeout(f, ms) { const id = next++; pending.set(id, { f, ms }); return id; },
    clearTimeout(id) { pending.delete(id); },
    get waits() { return [...pending.values()].map((t) => t.ms); },
    // Runs every timer waiting now (not those they set).
    runAll() {
      const now = [...pending.entries()];
      for (const [id] of now) pending.delete(id);
      for (const [, t] of now) t.f();
      return now.length;
    },
  };
}

// Counting bytes (0, 1, 2, ...) in place of crypto's random ones: ids are distinct and
// predictable.
export function countingBytes() {
  let k = 0;
  return (n) => Uint8Array.from({ length: n }, () => k++ % 256);
}
