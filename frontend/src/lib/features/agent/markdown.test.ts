// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { linkTarget, renderMarkdown } from './markdown';

const dom = (md: string) => {
  const div = document.createElement('div');
  div.innerHTML = renderMarkdown(md);
  return div;
};

describe('renderMarkdown', () => {
  it('renders GitHub-flavoured Markdown: code blocks, lists, tables, task lists, strikethrough', () => {
    const d = dom('# Title\n\n- one\n- two\n\n1. first\n\n```ts\nconst a = 1 < 2;\n```\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~ `x`');
    expect(d.querySelector('h1')?.textContent).toBe('Title');
    expect([...d.querySelectorAll('ul li')].map((li) => li.textContent)).toEqual(['one', 'two', ' done']);
    expect(d.querySelector('ol li')?.textContent).toBe('first');
    expect(d.querySelector('pre code.language-ts')?.textContent).toBe('const a = 1 < 2;\n');
    expect([...d.querySelectorAll('td')].map((td) => [td.textContent, td.getAttribute('align')])).toEqual([
      ['1', 'left'],
      ['2', 'right'],
    ]);
    const box = d.querySelector('input') as HTMLInputElement;
    expect(box.type).toBe('checkbox');
    expect(box.disabled).toBe(true);
    expect(d.querySelector('del')?.textContent).toBe('old');
  });

  it.each([
    ['a script block', '<script>alert(1)</script>'],
    ['an inline image with onerror', 'text <img src=x onerror="alert(1)"> more'],
    ['an svg with onload', '<svg onload="alert(1)"><circle/></svg>'],
    ['an iframe', '<iframe src="https://evil.example"></iframe>'],
    ['a style tag', '<style>body{display:none}</style>'],
    ['an anchor with a handler', '<a href="https://x.example" onclick="alert(1)">x</a>'],
  ])('shows %s as text, never as markup', (_, payload) => {
    const d = dom(payload);
    expect(d.querySelector('script, img, svg, iframe, style, [onerror], [onload], [onclick]')).toBeNull();
    expect(d.textContent).toContain(payload.slice(0, 8));
  });

  it('keeps only http(s) and mailto links and never loads images', () => {
    const d = dom('[a](javascript:alert(1)) [b](data:text/html,hi) [c](vbscript:x) [d](https://ok.example/p) [e](mailto:me@x.example) ![pic](https://img.example/p.png) <https://auto.example>');
    expect([...d.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([
      'https://ok.example/p',
      'mailto:me@x.example',
      'https://img.example/p.png',
      'https://auto.example/',
    ]);
    expect(d.textContent).toContain('a b c d e pic');
    expect(d.querySelector('img')).toBeNull();
  });

  it('drops attributes Markdown does not produce, even from link titles', () => {
    const d = dom('[x](https://ok.example "t\\" onmouseover=\\"alert(1)")');
    const a = d.querySelector('a')!;
    expect([...a.attributes].map((x) => x.name).sort()).toEqual(['href', 'title']);
  });
});

describe('linkTarget', () => {
  it.each([
    ['https://example.com/a', 'https://example.com/a'],
    ['http://localhost:3000', 'http://localhost:3000/'],
    ['mailto:me@example.com', ''],
    ['javascript:alert(1)', ''],
    ['src/app.ts', ''],
    ['#top', ''],
    [null, ''],
  ])('%s → %s', (href, want) => {
    expect(linkTarget(href)).toBe(want);
  });
});
