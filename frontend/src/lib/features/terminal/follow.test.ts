import { describe, expect, it } from 'vitest';
import { BindingFollower } from './follow';

describe('BindingFollower', () => {
  it('an attach that settles while the tab is bound to another terminal switches to it', () => {
    let bound = 'term_b';
    const f = new BindingFollower(() => bound);
    f.begin();
    expect(f.settled('term_a')).toBe('term_b');
    bound = 'term_a';
    f.begin();
    expect(f.settled('term_a')).toBe('');
  });

  it('a binding that moves while a re-attach is in flight is followed when the re-attach fails', () => {
    // Window P re-attaches to B (the other window's binding); meanwhile P's
    // own binding A wins and B is closed: the re-attach fails, A is shown.
    let bound = 'term_b';
    const f = new BindingFollower(() => bound);
    f.begin();
    bound = 'term_a';
    expect(f.changed('term_a')).toBe(''); // attaching: decided when it settles
    expect(f.settled('', 'term_b')).toBe('term_a');
  });

  it('a failed re-attach to the bound terminal stays failed (no loop)', () => {
    const f = new BindingFollower(() => 'term_b');
    f.begin();
    expect(f.settled('', 'term_b')).toBe('');
  });

  it('follows a binding change once shown, but not to the terminal it shows or one it left', () => {
    let bound = 'term_a';
    const f = new BindingFollower(() => bound);
    f.begin();
    expect(f.settled('term_a')).toBe('');
    expect(f.changed('term_a')).toBe('');
    expect(f.changed('term_c')).toBe('term_c');
    f.leave('term_a');
    bound = 'term_a';
    f.begin();
    expect(f.settled('term_n')).toBe('');
    expect(f.changed('term_a')).toBe('');
    expect(f.changed('')).toBe('');
  });
});
