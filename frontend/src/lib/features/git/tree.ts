/** A changed file as the Git panel lists it. */
export interface PanelFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

/** A folder of the changes tree: subfolders first, then files, with totals. */
export interface TreeDir {
  name: string;
  /** Repository-relative folder ('' for the root). */
  path: string;
  dirs: TreeDir[];
  files: PanelFile[];
  count: number;
  additions: number;
  deletions: number;
}

/**
 * Builds the folder tree of a file list: directories first, each level
 * sorted by name, every folder carrying its file count and +/- totals.
 * A chain of folders with a single subfolder and no files is kept as is
 * (each folder is its own node), so paths stay recognisable.
 */
export function buildTree(files: PanelFile[]): TreeDir {
  const root: TreeDir = { name: '', path: '', dirs: [], files: [], count: 0, additions: 0, deletions: 0 };
  for (const f of files) {
    const parts = f.path.replace(/\/$/, '').split('/');
    let dir = root;
    dir.count++;
    dir.additions += f.additions;
    dir.deletions += f.deletions;
    for (let i = 0; i < parts.length - 1; i++) {
      const path = parts.slice(0, i + 1).join('/');
      let next = dir.dirs.find((d) => d.name === parts[i]);
      if (!next) {
        next = { name: parts[i], path, dirs: [], files: [], count: 0, additions: 0, deletions: 0 };
        dir.dirs.push(next);
      }
      dir = next;
      dir.count++;
      dir.additions += f.additions;
      dir.deletions += f.deletions;
    }
    dir.files.push(f);
  }
  const sort = (d: TreeDir) => {
    d.dirs.sort((a, b) => a.name.localeCompare(b.name));
    d.files.sort((a, b) => a.path.localeCompare(b.path));
    d.dirs.forEach(sort);
  };
  sort(root);
  return root;
}

/** The file name of a path. */
export function baseName(path: string): string {
  const p = path.replace(/\/$/, '');
  return p.slice(p.lastIndexOf('/') + 1);
}
