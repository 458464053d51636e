import { describe, expect, it } from 'vitest';
import type { OutputPage } from '../../bridge';
import { isFinal, nextAfter, outputURL, pullOutput, type PullStatus } from './output';

const page = (p: Partial<OutputPage>): OutputPage => ({ entries: [], nextSeq: 1, status: 'running', ...p });
const entry = (seq: number, text = `line ${seq}`) => ({ seq, stream: 'stdout' as const, text, ts: 1 });

/** A fetch that answers from a script of responses and records the URLs asked. */
function scripted(answers: (Response | Error | (() => Response))[]) {
  const urls: string[] = [];
  const fetch = (async (url: string) => {
    urls.push(url);
    const a = answers.shift();
    if (!a) throw new Error('script ran out');
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a() : a;
  }) as unknown as typeof globalThis.fetch;
  return { fetch, urls };
}
const json = (p: OutputPage) => new Response(JSON.stringify(p), { status: 200, headers: { 'Content-Type': 'application/json' } });
const noSleep = async () => {};

describe('output paths and seqs', () => {
  it('builds the output URL', () => {
    expect(outputURL('dev_1', 0)).toBe('/_meith/process/dev_1/output?after=0');
    expect(outputURL('a/b', 7.9)).toBe('/_meith/process/a%2Fb/output?after=7');
    expect(outputURL('x', -3)).toBe('/_meith/process/x/output?after=0');
  });

  it('asks after the last entry, or below nextSeq', () => {
    expect(nextAfter(0, { entries: [entry(1), entry(2)], nextSeq: 3 })).toBe(2);
    expect(nextAfter(5, { entries: [], nextSeq: 6 })).toBe(5);
    expect(nextAfter(0, { entries: null, nextSeq: 40 })).toBe(39); // the ring dropped older entries
    expect(nextAfter(9, { entries: [], nextSeq: 0 })).toBe(9);
  });

  it('knows the final statuses', () => {
    expect(['exited', 'errored', 'stopped'].every(isFinal)).toBe(true);
    expect(['running', 'starting', '', undefined].some((s) => isFinal(s))).toBe(false);
  });
});

describe('pullOutput', () => {
  it('pulls pages in order, each after the last, and stops once the process ended and went quiet', async () => {
    const { fetch, urls } = scripted([
      json(page({ entries: [entry(1), entry(2)], nextSeq: 3 })),
      json(page({ entries: [], nextSeq: 3 })), // a long poll with nothing new
      json(page({ entries: [entry(3)], nextSeq: 4, status: 'exited' })),
      json(page({ entries: [], nextSeq: 4, status: 'exited' })),
      json(page({ entries: [], nextSeq: 4, status: 'exited' })),
    ]);
    const got: number[] = [];
    const ac = new AbortController();
    const end = await pullOutput('dev_1', { signal: ac.signal, fetch, sleep: noSleep, onPage: (es) => got.push(...es.map((e) => e.seq)) });
    expect(end).toBe('ended');
    expect(got).toEqual([1, 2, 3]);
    expect(urls.map((u) => u.split('after=')[1])).toEqual(['0', '2', '2', '3', '3']);
  });

  it('starts after a given seq (a terminal snapshot) and reports an unknown process as gone', async () => {
    const { fetch, urls } = scripted([new Response('{"error":"unknown"}', { status: 404 })]);
    const end = await pullOutput('term_1', { signal: new AbortController().signal, after: 41, fetch, sleep: noSleep, onPage: () => {} });
    expect(end).toBe('gone');
    expect(urls).toEqual(['/_meith/process/term_1/output?after=41']);
  });

  it('retries failed requests, says so, and says when it is live again', async () => {
    const { fetch } = scripted([
      new Error('connection refused'),
      new Response('boom', { status: 500 }),
      json(page({ entries: [entry(1)], nextSeq: 2 })),
      json(page({ nextSeq: 2, status: 'stopped' })),
      json(page({ nextSeq: 2, status: 'stopped' })),
    ]);
    const statuses: PullStatus[] = [];
    const slept: number[] = [];
    const end = await pullOutput('dev_1', {
      signal: new AbortController().signal,
      fetch,
      sleep: async (ms) => void slept.push(ms),
      onPage: () => {},
      onStatus: (s) => statuses.push(s),
    });
    expect(end).toBe('ended');
    expect(statuses).toEqual([
      { kind: 'error', text: 'output: connection refused' },
      { kind: 'error', text: 'output: HTTP 500: boom' },
      { kind: 'live' },
    ]);
    expect(slept.length).toBeGreaterThanOrEqual(2);
  });

  it('waits for the consumer before every request (backpressure) and stops on abort', async () => {
    const ac = new AbortController();
    let readyCalls = 0;
    const { fetch } = scripted([json(page({ entries: [entry(1)], nextSeq: 2 })), () => (ac.abort(), json(page({ nextSeq: 2 })))]);
    const end = await pullOutput('dev_1', {
      signal: ac.signal,
      fetch,
      sleep: noSleep,
      ready: async () => void readyCalls++,
      onPage: () => {},
    });
    expect(end).toBe('aborted');
    expect(readyCalls).toBe(2);
  });

  it('does not spin on empty answers that come at once', async () => {
    const ac = new AbortController();
    let n = 0;
    const fetch = (async () => {
      if (++n === 5) ac.abort();
      return json(page({ nextSeq: 1 }));
    }) as unknown as typeof globalThis.fetch;
    const slept: number[] = [];
    await pullOutput('dev_1', { signal: ac.signal, fetch, sleep: async (ms) => void slept.push(ms), onPage: () => {} });
    expect(slept.length).toBeGreaterThanOrEqual(4);
  });
});
