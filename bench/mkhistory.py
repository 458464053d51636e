#!/usr/bin/env python3
"""Build a long, packed git history for the git benchmarks (issue 20).

    python3 bench/mkhistory.py /tmp/history            # ~100,000 commits over ~5,200 files
    python3 bench/mkhistory.py /tmp/small --commits 3000 --files 400   # a small one

The repository is written with `git fast-import` in one stream, then checked
out, repacked with fresh deltas (`git repack -adf`, as a served clone has them), packed with `git gc` and given a commit-graph with changed-path Bloom
filters (`git commit-graph write --reachable --changed-paths`). It is
deterministic: the same arguments give the same commits (same hashes) on
any machine; only the pack's delta choices may differ.

Its shape, like a long-lived project's:
  * a first commit with every file (N files in src/<area>/<module>/, plus
    docs/, CHANGELOG.md and the long-lived src/core/engine.c);
  * then ordinary commits of 1-4 changed files, with a hot set of files
    changed far more often than the rest (src/core/ among them);
  * topic branches (up to three open at once) whose commits interleave in
    time with main's, merged back with a merge commit (--no-ff, no
    conflicts: a branch and main never change the same file at once);
  * renames (some with an edit), on main and on branches, additions and
    deletions;
  * src/core/engine.c, about 1,200 lines at first and 2,900 at the end,
    changed by one commit in ~40 (some on branches): the blame benchmark's
    file;
  * docs/legacy/README.txt, changed by three commits only: the rarely touched
    path of the path-limited log benchmark;
  * tags (some annotated) every 5,000 commits, a .gitignore, and after the
    checkout an ignored node_modules/ of 2,000 files that git status must
    not enter.

The result is cached: a directory that already holds a repository built by
this script with the same arguments is left as it is (delete it to
rebuild). A build goes to <path>.tmp and is renamed into place at the end.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time

VERSION = 2
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
         "upsilon phi chi psi omega read write open close seek flush sync lock unlock parse print scan emit "
         "load store push pop map fold sort merge split join trim pad encode decode hash check count limit "
         "retry yield wait send recv init free copy move").split()
AUTHORS = [(f"Dev{i:02d} {n}", f"dev{i:02d}@example.org", tz) for i, (n, tz) in enumerate(
    [("Ada", "+0100"), ("Bo", "-0700"), ("Cy", "+0000"), ("Di", "+0530"), ("Ed", "-0500"), ("Flo", "+0200"),
     ("Gus", "+0900"), ("Hal", "-0300"), ("Ivy", "+1000"), ("Jo", "-0800"), ("Kim", "+0100"), ("Lu", "+0800"),
     ("Max", "+0000"), ("Ned", "-0400"), ("Oz", "+0300"), ("Pia", "+0100"), ("Quin", "-0600"), ("Ray", "+0200"),
     ("Sam", "+0000"), ("Tia", "+0530"), ("Uma", "-0700"), ("Vic", "+0100"), ("Wen", "+0800"), ("Xan", "-0500")])]
MAINTAINER = ("Mara Maintainer", "maint@example.org", "+0100")
ENGINE = "src/core/engine.c"
RARE = "docs/legacy/README.txt"
BIG_MIN, BIG_MAX = 1200, 2900


class Gen:
    def __init__(self, args, out):
        self.rng = random.Random(args.seed)
        self.out = out
        self.target = args.commits
        self.nfiles = args.files
        self.clock = 1262304000  # 2010-01-01
        self.mark = 0
        self.commits = 0
        self.counter = 0
        self.step = 0
        self.files = {}  # main's files: path -> tuple of lines
        self.paths = []  # ordinary paths that commits may pick
        self.pos = {}  # path -> index in self.paths
        self.hot = []
        self.last_main_change = {}  # path -> step of main's last change
        self.reserved = set()  # paths an open branch owns
        self.branches = []
        self.topic = 0
        self.main_tip = None
        self.rare_at = {int(self.target * f) for f in (0.05, 0.31, 0.62)}

    # --- content -------------------------------------------------------
    def line(self):
        self.counter += 1
        r = self.rng
        return f"{r.choice(WORDS)} {r.choice(WORDS)}_{r.choice(WORDS)}({self.counter}, {r.randrange(1000)});"

    def new_file(self, n):
        return tuple(self.line() for _ in range(n))

    def edit(self, lines, big=False):
        lines = list(lines)
        r = self.rng
        lo, hi = (BIG_MIN, BIG_MAX) if big else (5, 120)
        grow = big and len(lines) < BIG_MAX - 50
        for _ in range(r.randint(1, 4 if big else 3)):
            i = r.randrange(len(lines) + 1)
            k = r.random()
            if (k < 0.35 or grow and k < 0.6) and len(lines) < hi:
                for _ in range(r.randint(1, 6 if big else 3)):
                    lines.insert(i, self.line())
            elif k < 0.85 or len(lines) <= lo:
                for j in range(i, min(len(lines), i + r.randint(1, 4))):
                    lines[j] = self.line()
            else:
                del lines[max(0, i - 1):max(0, i - 1) + r.randint(1, 3)]
        return tuple(lines)

    # --- fast-import stream ---------------------------------------------
    def w(self, s):
        self.out.write(s.encode() if isinstance(s, str) else s)

    def data(self, b):
        self.w(f"data {len(b)}\n")
        self.w(b)
        self.w("\n")

    def blob(self, lines):
        return ("\n".join(lines) + "\n").encode() if lines else b""

    def person(self, who, when):
        name, email, tz = who
        return f"{name} <{email}> {when} {tz}"

    def tick(self):
        self.clock += self.rng.randint(60, 3600)
        return self.clock

    def commit(self, ref, msg, parents, changes, author=None, committer=None):
        """changes: list of (path, lines) or (path, None) to delete, or ('R', old, new)."""
        self.mark += 1
        self.commits += 1
        when = self.tick()
        author = author or self.rng.choice(AUTHORS)
        committer = committer or author
        self.w(f"commit {ref}\nmark :{self.mark}\n")
        self.w(f"author {self.person(author, when)}\ncommitter {self.person(committer, when)}\n")
        self.data(msg.encode())
        if parents:
            self.w(f"from :{parents[0]}\n")
            for p in parents[1:]:
                self.w(f"merge :{p}\n")
        for c in changes:
            if c[0] == "R":
                self.w(f'R {c[1]} {c[2]}\n')
            elif c[1] is None:
                self.w(f"D {c[0]}\n")
            else:
                self.w(f"M 100644 inline {c[0]}\n")
                self.data(self.blob(c[1]))
        self.w("\n")
        return self.mark

    # --- paths -----------------------------------------------------------
    def add_path(self, p):
        self.pos[p] = len(self.paths)
        self.paths.append(p)

    def remove_path(self, p):
        i = self.pos.pop(p)
        last = self.paths.pop()
        if last != p:
            self.paths[i] = last
            self.pos[last] = i
        if p in self.hot:
            self.hot.remove(p)

    def pick(self, ok):
        r = self.rng
        for _ in range(20):
            p = r.choice(self.hot) if self.hot and r.random() < 0.5 else r.choice(self.paths)
            if ok(p):
                return p
        return None

    def fresh_name(self, old):
        d = os.path.dirname(old)
        if self.rng.random() < 0.5:
            d = os.path.dirname(self.rng.choice(self.paths))
        base = os.path.splitext(os.path.basename(old))[0].split("_r")[0]
        n = 0
        while True:
            p = f"{d}/{base}_r{self.step}{'_' + str(n) if n else ''}.c"
            if p not in self.files and p not in self.reserved:
                return p
            n += 1

    # --- history -----------------------------------------------------------
    def initial(self):
        r = self.rng
        areas, mods = 20, 13
        per = max(1, -(-self.nfiles // (areas * mods)))
        changes = []
        for a in range(areas):
            for m in range(mods):
                for f in range(per):
                    p = f"src/area{a:02d}/mod{m:02d}/file{f:02d}.c"
                    self.files[p] = self.new_file(r.randint(8, 40))
                    self.add_path(p)
        for p in ("src/core/sched.c", "src/core/alloc.c", "src/core/io.c", "src/core/net.c"):
            self.files[p] = self.new_file(60)
            self.add_path(p)
        self.hot = [p for p in self.paths if r.random() < 0.02] + ["src/core/sched.c", "src/core/alloc.c",
                                                                   "src/core/io.c", "src/core/net.c"]
        self.files[ENGINE] = self.new_file(BIG_MIN)
        self.files[RARE] = self.new_file(12)
        self.files["CHANGELOG.md"] = ("# Changes",)
        self.files[".gitignore"] = ("/build/", "node_modules/", "*.o")
        changes = [(p, ls) for p, ls in sorted(self.files.items())]
        self.main_tip = self.commit("refs/heads/main", "Initial import\n", [], changes, author=MAINTAINER)

    def changes_for(self, ok, owner=None):
        """Changes of an ordinary commit: edits, sometimes a rename, an add or a delete."""
        r = self.rng
        out, touched = [], []

        def cur(p):
            return owner.files[p] if owner and p in owner.files else self.files[p]
        if r.random() < 1 / 40 and ok(ENGINE):
            out.append((ENGINE, self.edit(cur(ENGINE), big=True)))
            touched.append(ENGINE)
        k = r.random()
        if k < 0.006:  # a rename, half of them with an edit
            old = self.pick(lambda p: ok(p) and p not in touched)
            if old:
                new = self.fresh_name(old)
                out.append(("R", old, new))
                if r.random() < 0.5:
                    out.append((new, self.edit(cur(old))))
                touched += [old, new]
                return out, touched
        elif k < 0.012:  # a new file
            d = os.path.dirname(r.choice(self.paths))
            new = f"{d}/new{self.step}.c"
            if new not in self.files and new not in self.reserved:
                out.append((new, self.new_file(r.randint(8, 40))))
                touched.append(new)
        elif k < 0.016 and len(self.paths) > self.nfiles:  # a deletion
            old = self.pick(lambda p: ok(p) and p not in touched)
            if old:
                out.append((old, None))
                touched.append(old)
        for _ in range(r.choice((1, 1, 1, 2, 2, 3, 4))):
            p = self.pick(lambda p: ok(p) and p not in touched)
            if p:
                out.append((p, self.edit(cur(p))))
                touched.append(p)
        return out, touched

    def apply_main(self, changes):
        for c in changes:
            if c[0] == "R":
                self.files[c[2]] = self.files.pop(c[1])
                self.remove_path(c[1])
                self.add_path(c[2])
                self.last_main_change[c[1]] = self.last_main_change[c[2]] = self.step
            elif c[1] is None:
                del self.files[c[0]]
                self.remove_path(c[0])
                self.last_main_change[c[0]] = self.step
            else:
                if c[0] not in self.files and c[0] not in (ENGINE, RARE):
                    self.add_path(c[0])
                self.files[c[0]] = c[1]
                self.last_main_change[c[0]] = self.step

    def main_commit(self):
        if self.step in self.rare_at:
            ch = [(RARE, self.edit(self.files[RARE]))]
            self.main_tip = self.commit("refs/heads/main", "docs: refresh the legacy notes\n", [self.main_tip], ch)
            self.apply_main(ch)
            return
        ok = lambda p: p not in self.reserved
        ch, _ = self.changes_for(ok)
        if not ch:
            return
        if self.rng.random() < 0.15:
            cl = self.files["CHANGELOG.md"]
            ch.append(("CHANGELOG.md", (cl[0], "- " + self.line()) + cl[1:300]))
        self.main_tip = self.commit("refs/heads/main", self.message(ch), [self.main_tip], ch)
        self.apply_main(ch)

    def message(self, ch):
        r = self.rng
        first = ch[0][1] if ch[0][0] == "R" else ch[0][0]
        area = first.split("/")[1] if first.count("/") >= 2 else first
        subject = f"{area}: {r.choice(WORDS)} the {r.choice(WORDS)} {r.choice(WORDS)}"
        if ch[0][0] == "R":
            subject = f"{area}: move {os.path.basename(ch[0][1])} to {ch[0][2]}"
        body = "" if r.random() < 0.4 else "\n" + " ".join(r.choice(WORDS) for _ in range(r.randint(8, 40))) + "\n"
        return subject + "\n" + body

    def branch_commit(self, b):
        def ok(p):
            if p in b.files:
                return b.files[p] is not None
            return p not in self.reserved and self.last_main_change.get(p, -1) < b.fork_step and p in self.files
        ch, touched = self.changes_for(ok, owner=b)
        if not ch:
            return
        parent = b.tip if b.tip else b.fork
        b.tip = self.commit("refs/heads/topic", self.message(ch), [parent], ch)
        for p in touched:
            if p not in b.touched:
                b.touched.add(p)
                self.reserved.add(p)
        for c in ch:
            if c[0] == "R":
                b.files[c[2]] = b.files.pop(c[1], None) or self.files[c[1]]
                b.files[c[1]] = None
            else:
                b.files[c[0]] = c[1]
        b.left -= 1

    def merge(self, b):
        ch = []
        for p in sorted(b.touched):
            v = b.files.get(p)
            if v is None:
                if p in self.files:
                    ch.append((p, None))
            else:
                ch.append((p, v))
        self.main_tip = self.commit("refs/heads/main", f"Merge branch 'topic-{b.n}'\n", [self.main_tip, b.tip], ch,
                                    author=MAINTAINER)
        for c in ch:
            p, v = c
            if v is None:
                del self.files[p]
                self.remove_path(p)
            else:
                if p not in self.files and p not in (ENGINE, RARE):
                    self.add_path(p)
                self.files[p] = v
            self.last_main_change[p] = self.step
        self.reserved -= b.touched
        self.branches.remove(b)

    def tag(self, n):
        t = self.tick()
        if n % 2:
            self.w(f"tag v{n}.0\nfrom :{self.main_tip}\ntagger {self.person(MAINTAINER, t)}\n")
            self.data(f"Release {n}.0\n".encode())
        else:
            self.w(f"reset refs/tags/v{n}.0\nfrom :{self.main_tip}\n\n")

    def run(self):
        r = self.rng
        self.initial()
        next_tag = 5000
        while self.commits < self.target:
            self.step += 1
            k = r.random()
            if self.branches and k < 0.3:
                b = r.choice(self.branches)
                if b.tip is None or b.left > 0:
                    self.branch_commit(b)
                if b.left <= 0 and b.tip is not None:
                    self.merge(b)
            elif len(self.branches) < 3 and k < 0.36:
                self.topic += 1
                b = Branch(self.topic, self.main_tip, self.step, r.randint(1, 7))
                self.branches.append(b)
                self.branch_commit(b)
            else:
                self.main_commit()
            if self.commits >= next_tag:
                self.tag(next_tag // 5000)
                next_tag += 5000
        for b in list(self.branches):  # close what is still open
            if b.tip is not None:
                self.merge(b)
        self.w(f"reset refs/heads/topic\nfrom :{self.main_tip}\n\n")
        self.w("done\n")


class Branch:
    def __init__(self, n, fork, step, left):
        self.n, self.fork, self.fork_step, self.left = n, fork, step, left
        self.tip = None
        self.touched = set()
        self.files = {}  # path -> lines, None when deleted on the branch


def git(cwd, *args, **kw):
    return subprocess.run(["git", "-C", cwd, *args], check=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", help="where the repository is (or is cached)")
    ap.add_argument("--commits", type=int, default=100_000, help="commits, merges included (default 100,000)")
    ap.add_argument("--files", type=int, default=5_200, help="files of the first commit (default 5,200)")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--no-gc", action="store_true", help="leave the fast-import pack as it is (tests)")
    args = ap.parse_args()
    stamp = f"mkhistory v{VERSION} commits={args.commits} files={args.files} seed={args.seed} gc={not args.no_gc}\n"
    dest = os.path.abspath(args.path)
    stamp_file = os.path.join(dest, ".git", "mkhistory-stamp")
    try:
        with open(stamp_file) as f:
            if f.read() == stamp:
                print(f"{dest}: cached ({stamp.strip()})")
                return
    except OSError:
        pass
    if os.path.exists(dest):
        sys.exit(f"{dest} exists and was not built by mkhistory.py with these arguments: delete it first")
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    t0 = time.time()
    git(tmp, "init", "-q", "-b", "main", env=env)
    fi = subprocess.Popen(["git", "-C", tmp, "fast-import", "--quiet", "--date-format=raw", "--done"],
                          stdin=subprocess.PIPE, env=env)

    class Buffered:
        def __init__(self, f):
            self.f, self.buf, self.n = f, [], 0

        def write(self, b):
            self.buf.append(b)
            self.n += len(b)
            if self.n > 1 << 20:
                self.flush()

        def flush(self):
            self.f.write(b"".join(self.buf))
            self.buf, self.n = [], 0

    out = Buffered(fi.stdin)
    g = Gen(args, out)
    g.run()
    out.flush()
    fi.stdin.close()
    if fi.wait() != 0:
        sys.exit("git fast-import failed")
    t1 = time.time()
    print(f"fast-import: {g.commits} commits, {len(g.files)} files at the end, {t1 - t0:.1f}s")
    git(tmp, "reset", "-q", "--hard", "main", env=env)
    if not args.no_gc:
        # fast-import deltas each blob against the blob written before it,
        # whatever its path: recompute deltas as a served clone has them.
        git(tmp, "-c", "pack.threads=2", "repack", "-a", "-d", "-f", "-q", "--window=10", "--depth=50", env=env)
        git(tmp, "gc", "--quiet", env=env)
    t2 = time.time()
    git(tmp, "commit-graph", "write", "--reachable", "--changed-paths", env=env)
    print(f"checkout + gc: {t2 - t1:.1f}s, commit-graph: {time.time() - t2:.1f}s")
    for i in range(2000):  # ignored: status must not enter it
        d = os.path.join(tmp, "node_modules", f"pkg{i // 10:03d}", "lib")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"m{i % 10}.js"), "w") as f:
            f.write(f"module.exports = {i};\n")
    with open(os.path.join(tmp, ".git", "mkhistory-stamp"), "w") as f:
        f.write(stamp)
    os.rename(tmp, dest)
    head = subprocess.run(["git", "-C", dest, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    print(f"{dest}: HEAD {head}, {time.time() - t0:.1f}s in all")


if __name__ == "__main__":
    main()
