import { listTools, type ToolDescriptor } from '../bridge';
import { humanizeError } from '../errors';

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
      this.error = humanizeError(err, 'list the tools');
    } finally {
      this.loading = false;
    }
  }
}

export const tools = new ToolsStore();
