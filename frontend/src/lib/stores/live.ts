import { subscribe, type Topics } from '../bridge';
import { coalesced } from './coalesce';

/**
 * The change hints the Go side pushes (backend/hint: one topic per family,
 * each a small Wails event saying what changed, never the data).
 */
export type HintTopic = (typeof Topics)[Exclude<keyof typeof Topics, 'toolEvent' | 'toolResult'>];

/** How a live store follows its topic. */
export interface LiveOptions<P> {
  /** Which hints concern the store (default: every hint of the topic). */
  accept?: (payload: P) => boolean;
  /** What an accepted hint does (default: a re-read). */
  onHint?: (payload: P) => void;
  /** Receives the error when the window's events cannot be subscribed to. */
  onError?: (err: unknown) => void;
  /** Whether start() reads at once (default true). */
  readOnStart?: boolean;
  /** While started, re-read this often too, in case a hint was missed (ms; default never). */
  fallbackMs?: number;
}

/** The lifecycle of a store that follows a change hint topic. */
export interface LiveStore {
  /** Subscribes to the topic (once) and reads; returns stop. */
  start(): () => void;
  /** Unsubscribes and stops the fallback re-reads. */
  stop(): void;
  /** Re-reads. Calls that arrive while a read runs coalesce into one more read. */
  refresh(): Promise<void>;
  /**
   * Starts, and tells onLive whether the store hears the topic's hints
   * (false again once the returned stop ran): a panel's "live" mark.
   */
  follow(onLive: (live: boolean) => void): () => void;
  /** True while the store hears the topic's hints. */
  readonly subscribed: boolean;
}

/**
 * The lifecycle every live store shares: subscribe to a hint topic, re-read
 * with load on each hint (coalesced: a burst of hints during a read costs
 * one more read, and the last change is always seen), and stop.
 */
export function liveStore<P = unknown>(topic: HintTopic, load: () => Promise<void>, opts: LiveOptions<P> = {}): LiveStore {
  const refresh = coalesced(load);
  const onHint = opts.onHint ?? (() => void refresh());
  let off: (() => void) | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    off?.();
    off = null;
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const start = () => {
    if (!off) {
      try {
        off = subscribe<P>(topic, (payload) => {
          if (!opts.accept || opts.accept(payload)) onHint(payload);
        });
      } catch (err) {
        opts.onError?.(err);
      }
    }
    if (opts.fallbackMs && timer === undefined) timer = setInterval(() => void refresh(), opts.fallbackMs);
    if (opts.readOnStart !== false) void refresh();
    return stop;
  };
  return {
    start,
    stop,
    refresh,
    follow(onLive) {
      start();
      onLive(off !== null);
      return () => {
        stop();
        onLive(false);
      };
    },
    get subscribed() {
      return off !== null;
    },
  };
}

/**
 * The start, stop and refresh of a store whose data follows one topic: they
 * go to its liveStore. A store that does more when it starts or stops
 * (other subscriptions, timers) writes its own.
 */
export abstract class LiveModel {
  protected abstract readonly hints: LiveStore;

  /** Subscribes to the store's topic and reads; returns stop. */
  start(): () => void {
    this.hints.start();
    return () => this.stop();
  }

  /** Unsubscribes. */
  stop(): void {
    this.hints.stop();
  }

  /** Re-reads (calls during a read coalesce into one more). */
  refresh(): Promise<void> {
    return this.hints.refresh();
  }
}
