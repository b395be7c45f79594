// dom.js: the one way text reaches the page. Every name, reason and message in a record comes
// from a target, a file or another bench's broker: it is text, never markup. So the dashboard
// builds its elements with h() and never assigns HTML (no innerHTML, insertAdjacentHTML or
// document.write anywhere in web/: tests/check-tree.sh refuses them): a string child becomes a
// text node, a property becomes a DOM property or a plain attribute, never an event handler.

/**
 * h(tag, props, ...children): a new element. props: class, title, dataset ({k: v}), style
 * ({prop: value}, through the CSSOM, which the Content-Security-Policy allows), any other key
 * as an attribute (on* keys are refused); children: strings and numbers as text, nodes as they
 * are, arrays flattened, null/undefined/false skipped. svg: true makes an SVG element.
 */
export function h(tag, props, ...children) {
  const p = props || {};
  const el = p.svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(p)) {
    if (v == null || v === false || k === 'svg') continue;
    if (/^on/i.test(k)) throw new Error(`h(): event handler attribute ${k} refused (use addEventListener)`);
    if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') Object.assign(el.style, v);
    else el.setAttribute(k === 'className' ? 'class' : k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c)); // a string is a text node
  }
}

/** Replaces el's children with children (as h() takes them). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
