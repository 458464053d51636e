// The Tools panel's "try it" form: fields from a tool's input schema (its
// top-level properties), and the arguments they make.

/** One field of the form. */
export interface ToolField {
  name: string;
  /** text: a string; number; boolean: a checkbox; enum: a select; json: any other value, typed as JSON. */
  kind: 'text' | 'number' | 'boolean' | 'enum' | 'json';
  required: boolean;
  description: string;
  options: string[];
}

interface PropSchema {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
}

/** The fields of an input schema, required ones first. */
export function fieldsOf(schema: unknown): ToolField[] {
  const s = (schema ?? {}) as { properties?: Record<string, PropSchema>; required?: string[] };
  const required = new Set(s.required ?? []);
  const fields = Object.entries(s.properties ?? {}).map(([name, p]): ToolField => {
    const types = Array.isArray(p.type) ? p.type.filter((t) => t !== 'null') : p.type ? [p.type] : [];
    const type = types.length === 1 ? types[0] : '';
    let kind: ToolField['kind'] = 'json';
    if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === 'string')) kind = 'enum';
    else if (type === 'string') kind = 'text';
    else if (type === 'number' || type === 'integer') kind = 'number';
    else if (type === 'boolean') kind = 'boolean';
    return { name, kind, required: required.has(name), description: p.description ?? '', options: kind === 'enum' ? (p.enum as string[]) : [] };
  });
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** Values as typed in the form: strings, except booleans ('' = not given). */
export type FormValues = Record<string, string | boolean | undefined>;

/**
 * The arguments the values make: empty fields are left out; a number field
 * must hold a number and a JSON field valid JSON, else an error names the field.
 */
export function argsOf(fields: readonly ToolField[], values: FormValues): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (v === undefined || v === '') continue;
    switch (f.kind) {
      case 'boolean':
        args[f.name] = v === true;
        break;
      case 'number': {
        const n = Number(v);
        if (!Number.isFinite(n)) return { error: `${f.name} must be a number` };
        args[f.name] = n;
        break;
      }
      case 'json':
        try {
          args[f.name] = JSON.parse(String(v));
        } catch {
          return { error: `${f.name} must be JSON (e.g. ["a", "b"] or {"k": 1})` };
        }
        break;
      default:
        args[f.name] = String(v);
    }
  }
  return { args };
}
