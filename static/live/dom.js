// The one element helper the pages draw with. It touches `document` only when called,
// so the modules that import it load in Node for their unit tests.

// h("button", {class: "x", onclick: f}, "text", child, ...) -> element
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Brings `old` in line with `fresh` (built by h) and returns the element that stays: a node
// equal to its fresh twin is not touched, a changed one has only its attributes and the
// children that differ updated. So a button a person is about to press stays the same
// element while what it acts on is unchanged. An element's `data-key` names what its
// listeners act on (h attaches them; they cannot be compared): a different key, or another
// tag, means a new element. Listeners of a kept element are the old ones: they read no
// data the key does not name. (morphdom and idiomorph do this at large; the pages load no
// third-party script, and these thirty lines are all the floor needs.)
export function morph(old, fresh) {
  if (old.isEqualNode(fresh)) return old;
  const keyOf = (node) => (node.nodeType === Node.ELEMENT_NODE ? node.getAttribute("data-key") : null);
  if (old.nodeType !== fresh.nodeType || old.nodeName !== fresh.nodeName || keyOf(old) !== keyOf(fresh)) {
    old.replaceWith(fresh);
    return fresh;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) {
    old.nodeValue = fresh.nodeValue;
    return old;
  }
  for (const { name } of [...old.attributes]) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of [...fresh.attributes]) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  morphChildren(old, [...fresh.childNodes]);
  return old;
}

// `parent`'s children brought in line with `children`, in their order: a child with a
// `data-key` is matched with the old child of that key wherever it stood, the others in
// order with the old children without one. A child already in its place is not moved.
export function morphChildren(parent, children) {
  const keyed = new Map();
  const plain = [];
  for (const node of parent.childNodes) {
    const key = node.nodeType === Node.ELEMENT_NODE ? node.getAttribute("data-key") : null;
    if (key !== null && !keyed.has(key)) keyed.set(key, node); else plain.push(node);
  }
  const kept = new Set();
  children.forEach((fresh, index) => {
    const key = fresh.nodeType === Node.ELEMENT_NODE ? fresh.getAttribute("data-key") : null;
    const old = key !== null ? keyed.get(key) : plain.shift();
    let node = fresh;
    if (old && !kept.has(old)) {
      node = morph(old, fresh);
      kept.add(node);
    }
    const here = parent.childNodes[index];
    if (here !== node) parent.insertBefore(node, here || null);
  });
  while (parent.childNodes.length > children.length) parent.lastChild.remove();
}
