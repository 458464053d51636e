// Native tooltips (title attributes) close when a popover or modal opens:
// WebKit keeps a tooltip up while the pointer rests on its element, so a
// menu or dialog opened from a titled button would sit under a stale
// tooltip. When an element with a dialog or menu role appears, the titles
// of the element under the pointer and its ancestors are set aside, and
// each comes back when the pointer leaves its element.

/** What opens a popover or modal. */
export const POPUP_SELECTOR = '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"], [aria-modal="true"]';
const SET_ASIDE = 'data-title-set-aside';

/** Starts watching doc; returns stop. */
export function closeTooltipsOnPopups(doc: Document = document): () => void {
  let hovered: Element | null = null;
  const onOver = (e: Event) => {
    hovered = e.target instanceof Element ? e.target : null;
  };
  const restore = (el: Element) => {
    const title = el.getAttribute(SET_ASIDE);
    if (title === null) return;
    el.setAttribute('title', title);
    el.removeAttribute(SET_ASIDE);
  };
  const setAside = () => {
    for (let el = hovered; el; el = el.parentElement) {
      const title = el.getAttribute('title');
      if (title === null) continue;
      el.setAttribute(SET_ASIDE, title);
      el.removeAttribute('title');
      el.addEventListener('pointerleave', () => restore(el), { once: true });
    }
  };
  const opened = (nodes: NodeList) =>
    [...nodes].some((n) => n instanceof Element && (n.matches(POPUP_SELECTOR) || n.querySelector(POPUP_SELECTOR) !== null));
  const observer = new MutationObserver((records) => {
    if (records.some((r) => opened(r.addedNodes))) setAside();
  });
  observer.observe(doc.body, { childList: true, subtree: true });
  doc.addEventListener('pointerover', onOver, true);
  return () => {
    observer.disconnect();
    doc.removeEventListener('pointerover', onOver, true);
    for (const el of doc.querySelectorAll(`[${SET_ASIDE}]`)) restore(el);
  };
}
