import { describe, expect, it } from 'vitest';
import { InputQueue } from './input';

describe('InputQueue', () => {
  it('sends in order, one write at a time, coalescing what is typed meanwhile', async () => {
    const sent: string[] = [];
    let release: () => void = () => {};
    const q = new InputQueue(
      (d) =>
        new Promise<void>((r) => {
          sent.push(d);
          release = r;
        }),
    );
    q.send('e');
    q.send('c');
    q.send('h');
    q.send('o\r');
    expect(sent).toEqual(['e']);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toEqual(['e', 'cho\r']);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(q.idle).toBe(true);
  });

  it('reports a failed write and goes on with the next input', async () => {
    const errors: unknown[] = [];
    const sent: string[] = [];
    const q = new InputQueue(
      async (d) => {
        sent.push(d);
        if (d === 'bad') throw new Error('gone');
      },
      (e) => errors.push(e),
    );
    q.send('bad');
    await new Promise((r) => setTimeout(r, 0));
    q.send('ok');
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toEqual(['bad', 'ok']);
    expect(errors.map(String)).toEqual(['Error: gone']);
  });
});
