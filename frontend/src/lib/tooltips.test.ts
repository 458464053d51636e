// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeTooltipsOnPopups } from './tooltips';

const tick = () => new Promise((r) => setTimeout(r, 0));
let stop: (() => void) | undefined;
beforeEach(() => {
  document.body.innerHTML = '<div id="rail" title="Spaces"><button id="avatar" title="todo-api · ~/src/todo-api">TA</button></div><button id="other" title="Other">x</button>';
  stop = closeTooltipsOnPopups(document);
});
afterEach(() => stop?.());

describe('closeTooltipsOnPopups', () => {
  const avatar = () => document.getElementById('avatar')!;
  const rail = () => document.getElementById('rail')!;

  it("closes the hovered element's tooltip when a menu opens from it, and gives it back when the pointer leaves", async () => {
    avatar().dispatchEvent(new Event('pointerover', { bubbles: true }));
    const menu = document.createElement('div');
    menu.setAttribute('role', 'menu');
    document.body.append(menu);
    await tick();
    expect(avatar().hasAttribute('title')).toBe(false);
    expect(rail().hasAttribute('title')).toBe(false);
    expect(document.getElementById('other')!.getAttribute('title')).toBe('Other');
    avatar().dispatchEvent(new Event('pointerleave'));
    expect(avatar().getAttribute('title')).toBe('todo-api · ~/src/todo-api');
  });

  it('does the same for a modal dialog rendered inside a wrapper', async () => {
    avatar().dispatchEvent(new Event('pointerover', { bubbles: true }));
    const wrap = document.createElement('div');
    wrap.innerHTML = '<div class="dialog" role="alertdialog" aria-modal="true"></div>';
    document.body.append(wrap);
    await tick();
    expect(avatar().hasAttribute('title')).toBe(false);
  });

  it('leaves tooltips alone when nothing opens, and restores them when stopped', async () => {
    avatar().dispatchEvent(new Event('pointerover', { bubbles: true }));
    document.body.append(document.createElement('p'));
    await tick();
    expect(avatar().getAttribute('title')).toBe('todo-api · ~/src/todo-api');
    document.body.append(Object.assign(document.createElement('div'), { role: 'dialog' }));
    document.body.lastElementChild!.setAttribute('role', 'dialog');
    await tick();
    stop!();
    stop = undefined;
    expect(avatar().getAttribute('title')).toBe('todo-api · ~/src/todo-api');
  });
});
