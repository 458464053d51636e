// Markdown of agent output (untrusted) as HTML that is safe to insert.
//
// Two layers:
//  1. marked (GitHub-flavoured: code blocks, lists, tables, task lists) with
//     a renderer that emits no markup of the author's own: raw HTML is shown
//     as text, links keep an href only for http(s) and mailto URLs, images
//     become links (nothing loads from elsewhere).
//  2. An allowlist pass over the result in an inert <template>: any element
//     or attribute Markdown does not produce is dropped, so a bug in layer 1
//     cannot let a script, an event handler or a javascript: URL through.
// Links stay inert inside the app: the transcript intercepts their clicks
// (linkTarget says which ones open in a browser tab).
import { Marked, type Tokens } from 'marked';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The href kept for a link: http(s) and mailto URLs only ('' drops the link, its text stays). */
function safeHref(href: string): string {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : '';
  } catch {
    return '';
  }
}

const md = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      const safe = safeHref(href);
      if (!safe) return text;
      return `<a href="${escapeHtml(safe)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${text}</a>`;
    },
    image({ href, text }: Tokens.Image) {
      const safe = safeHref(href);
      const label = escapeHtml(text || href);
      return safe ? `<a href="${escapeHtml(safe)}">${label}</a>` : label;
    },
  },
});

const TAGS = new Set([
  'P', 'BR', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'DEL', 'S', 'CODE', 'PRE', 'BLOCKQUOTE',
  'UL', 'OL', 'LI', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'A', 'INPUT',
]);
const ATTRS: Record<string, ReadonlySet<string>> = {
  A: new Set(['href', 'title']),
  OL: new Set(['start']),
  TH: new Set(['align']),
  TD: new Set(['align']),
  CODE: new Set(['class']),
  INPUT: new Set(['type', 'checked', 'disabled']),
};

/** Drops what is not on the allowlist from the children of el (elements of other kinds are replaced by their text). */
function scrub(el: Element | DocumentFragment): void {
  for (const child of [...el.childNodes]) {
    if (child.nodeType === 3) continue; // text
    if (child.nodeType !== 1) {
      child.remove(); // comments, processing instructions…
      continue;
    }
    const e = child as Element;
    const tag = e.tagName.toUpperCase();
    if (!TAGS.has(tag) || (tag === 'INPUT' && e.getAttribute('type') !== 'checkbox')) {
      e.replaceWith(document.createTextNode(tag === 'INPUT' ? '' : (e.textContent ?? '')));
      continue;
    }
    const allowed = ATTRS[tag];
    for (const a of [...e.attributes]) {
      if (!allowed?.has(a.name.toLowerCase())) e.removeAttribute(a.name);
    }
    if (tag === 'A') {
      const href = safeHref(e.getAttribute('href') ?? '');
      if (href) e.setAttribute('href', href);
      else e.removeAttribute('href');
    }
    if (tag === 'CODE' && !/^language-[\w+#.-]*$/.test(e.getAttribute('class') ?? 'language-')) e.removeAttribute('class');
    if (tag === 'INPUT') e.setAttribute('disabled', '');
    scrub(e);
  }
}

/** Renders Markdown text to sanitized HTML. */
export function renderMarkdown(text: string): string {
  const html = md.parse(text ?? '') as string;
  if (typeof document === 'undefined') return html;
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  scrub(tpl.content);
  return tpl.innerHTML;
}

/**
 * The http(s) URL a click on a rendered link opens in a browser tab, or ''
 * when the click does nothing (mailto, other schemes, relative paths).
 */
export function linkTarget(href: string | null | undefined): string {
  const safe = safeHref(href ?? '');
  return safe.startsWith('http') ? safe : '';
}
