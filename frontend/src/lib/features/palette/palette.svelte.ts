/**
 * Whether the command palette (Ctrl+Shift+P) is open. The palette itself is
 * Palette.svelte, mounted once by App.svelte; anything may open it.
 */
class PaletteStore {
  open = $state(false);

  show(): void {
    this.open = true;
  }

  close(): void {
    this.open = false;
  }

  toggle(): void {
    this.open = !this.open;
  }
}

export const palette = new PaletteStore();
