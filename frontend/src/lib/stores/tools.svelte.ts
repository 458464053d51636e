import { listTools, BridgeError, type ToolDescriptor } from '../bridge';

class ToolsStore {
  list = $state<ToolDescriptor[]>([]);
  loading = $state(true);
  error = $state('');

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      const tools = await listTools();
      this.list = [...tools].sort((a, b) => a.name.localeCompare(b.name));
      this.error = '';
    } catch (err) {
      this.error = err instanceof BridgeError ? `${err.code}: ${err.message}` : String(err);
    } finally {
      this.loading = false;
    }
  }
}

export const tools = new ToolsStore();
