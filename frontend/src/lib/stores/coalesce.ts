/**
 * Coalesces re-reads: while one read runs, further requests do not start
 * reads of their own; they make exactly one more read run after it (so the
 * last change is always seen). The returned function resolves when the
 * reads it waited for are done.
 */
export function coalesced(read: () => Promise<void>): () => Promise<void> {
  let inflight: Promise<void> | null = null;
  let again = false;
  return () => {
    if (inflight) {
      again = true;
      return inflight;
    }
    inflight = (async () => {
      try {
        do {
          again = false;
          await read();
        } while (again);
      } finally {
        inflight = null;
      }
    })();
    return inflight;
  };
}
