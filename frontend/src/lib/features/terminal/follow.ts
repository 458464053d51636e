// Which terminal a terminal tab's view shows while the tab's binding moves.
//
// Two windows on one tab (or a window and the CLI) may each bind the tab:
// the last binding wins, and every view follows it. A view attaching (or
// re-attaching) when the binding moves cannot switch at once; it looks at
// the binding again when that attach settles, whether it worked or not —
// a re-attach to a terminal the other window's binding just closed fails,
// and the binding that closed it names the one to show instead.

/** Decides, for one view, when to switch to the terminal its tab is bound to. */
export class BindingFollower {
  private shown = '';
  private attaching = false;
  private readonly left = new Set<string>();

  /** bound reads the terminal the tab is bound to now ('' or null when none). */
  constructor(private readonly bound: () => string | null | undefined) {}

  /** The view starts an attach; nothing is shown until it settles. */
  begin(): void {
    this.attaching = true;
    this.shown = '';
  }

  /**
   * The attach ended: shown is the terminal the view now shows ('' when the
   * attach failed), tried the terminal it re-attached to ('' when it
   * attached to or started the tab's own). Returns the terminal to switch
   * to, or '' to stay.
   */
  settled(shown: string, tried = ''): string {
    this.attaching = false;
    this.shown = shown;
    const b = this.bound() ?? '';
    if (!b || b === shown || b === tried || this.left.has(b)) return '';
    return b;
  }

  /** The tab's binding changed to id: returns the terminal to switch to now, or ''. */
  changed(id: string): string {
    // While attaching, settled looks at the binding when the attach is done.
    if (!id || this.attaching || id === this.shown || this.left.has(id)) return '';
    return id;
  }

  /** The view left id (Restart): a stale binding that still names it is not followed. */
  leave(id: string): void {
    if (id) this.left.add(id);
  }
}
